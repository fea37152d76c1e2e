# revperf show ID judges a comparison with the tolerances it was judged with (recorded with
# its plan, schema 12), not those revperf.ini says now, and warns that they differ. Before,
# a tolerance raised from 2% to 5% after the comparison turned its `worse` (B 3% above A,
# exit 1) into `equal` in show, exit_code 0, without a word.
. "$SRCDIR/tests/cli/lib/common.bash"

values=$PWD/values
make_valued_repo repo
echo 1000 >"$values/A"
echo 1030 >"$values/B"
expect_exit 1 "$REVPERF" compare a b -q -f json
cp out.txt compared.json
key() { json_get "$1" "([m['verdict'] for m in d['benchmarks'][0]['metrics']], d['benchmarks'][0]['tolerance'], d['exit_code'])"; }
[ "$(key compared.json)" = "(['worse'], 0.02, 1)" ] || fail "compare: $(key compared.json)"

sed -i 's/^runs = 3..6$/runs = 3..6\ntolerance = 5%/' revperf.ini
git commit -qam "a wider tolerance"
expect_exit 0 "$REVPERF" show 1 -f json
[ "$(key out.txt)" = "$(key compared.json)" ] || fail "show: $(key out.txt), compare: $(key compared.json)"
expect_one_line err.txt
expect_grep 'v: comparison 1 judged it with tolerance 2%; the configuration now says 5%' err.txt
# Without -f json too, and quietly with -q.
expect_exit 0 "$REVPERF" show 1
expect_grep 'worse' out.txt
expect_exit 0 "$REVPERF" show 1 -q
[ ! -s err.txt ] || fail "a warning under -q: $(cat err.txt)"
# A comparison made now is judged with the new tolerance.
expect_exit 0 "$REVPERF" compare a b -q -f json --fresh
[ "$(json_get out.txt "d['benchmarks'][0]['tolerance']")" = 0.05 ] || fail "compare now: $(cat out.txt)"
echo ok
