# A time budget that ends before MIN runs on a side takes no look: the benchmark has no
# verdict yet ("the time budget ended before the first look"), and compare again goes on
# to the first planned look, at MIN runs, where its alpha is spent once. Before, the
# budget's end was a look of its own on fewer than MIN runs, at the first look's alpha,
# which the look at MIN then took a second time (here `worse` on 3 + 3 runs of a
# benchmark asked for 5..10).
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo repo
cd repo
v_ini slow "sh ./s.sh" "runs = 5..10" "time-budget = 1s"
# 0.5 s a run, A and B in turn: a 1 s budget ends with at most 2 or 3 runs a side.
printf 'sleep 0.5; echo "v $(cat val)"\n' >s.sh
echo 1000 >val
git add . && git commit -qm a && git tag a
echo 1100 >val
git commit -qam b && git tag b

b() { json_get "$1" "d['benchmarks'][0]$2"; }
expect_exit 0 "$REVPERF" compare a b -q -f json
cp out.txt first.json
[ "$(b first.json "['looks']")" = 0 ] || fail "a look before MIN runs: $(b first.json "['looks'], d['benchmarks'][0]['runs']")"
[ "$(b first.json "['metrics'][0]['verdict']")" = unmeasured ] ||
	fail "a verdict on $(b first.json "['runs']['baseline']['ok']") runs: $(b first.json "['metrics'][0]['verdict']")"
expect_exit 0 "$REVPERF" show a b
expect_grep 'time budget ended before the first look' out.txt

# Compare again, with time to reach MIN: one look, at the first look's alpha (runs 5..10:
# looks at 5, 7, 9, 10, each 0.75 x 0.01 / 4).
expect_exit 1 "$REVPERF" compare a b -q -f json --time-budget 60s
cp out.txt second.json
[ "$(b second.json "['looks']"), $(b second.json "['metrics'][0]['verdict']")" = "1, worse" ] ||
	fail "compare again: $(b second.json "['looks'], d['benchmarks'][0]['runs'], d['benchmarks'][0]['metrics'][0]['verdict']")"
[ "$(b second.json "['runs']['baseline']['ok']")" = 5 ] || fail "the first look not at MIN: $(b second.json "['runs']")"
python3 -c "import sys; assert abs(float(sys.argv[1]) - (1 - 0.75 * 0.01 / 4)) < 1e-12, sys.argv[1]" \
	"$(b second.json "['ci_level']")" || fail "level $(b second.json "['ci_level']")"
echo ok
