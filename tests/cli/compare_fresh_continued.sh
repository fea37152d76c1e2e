# A comparison that continues one made with --fresh (--more) continues its runs, not the
# earlier runs of the same builds that --fresh set aside. Before, --more took them back:
# after a first comparison with v = 1000 on both sides and --fresh with B at 1100 (worse,
# 3 + 3 runs), --more reused 6 + 6 runs, half of them the first comparison's, and judged
# B's mean as 1075, undecided.
. "$SRCDIR/tests/cli/lib/common.bash"

# Each side prints the value the test puts in its file (values/A, values/B).
values=$PWD/values
make_valued_repo repo

echo 1000 >"$values/A"
echo 1000 >"$values/B"
expect_exit 0 "$REVPERF" compare a b -q -f json
echo 1100 >"$values/B"
expect_exit 1 "$REVPERF" compare a b -q -f json --fresh

key() {
	json_get "$1" "(d['benchmarks'][0]['runs']['baseline']['reused'], d['benchmarks'][0]['runs']['target']['reused'], [(m['verdict'], m['baseline']['mean'], m['target']['mean']) for m in d['benchmarks'][0]['metrics']])"
}
expect_exit 1 "$REVPERF" compare a b -q -f json --more
cp out.txt more.json
[ "$(key more.json)" = "(3, 3, [('worse', 1000.0, 1100.0)])" ] ||
	fail "--more after --fresh: $(key more.json)"
expect_no_grep 'not reused' err.txt
# And shown again: the same.
id=$(json_get more.json "d['comparison_id']")
expect_exit 0 "$REVPERF" show "$id" -f json
[ "$(key out.txt)" = "$(key more.json)" ] || fail "show $id: $(key out.txt); measured: $(key more.json)"
echo ok
