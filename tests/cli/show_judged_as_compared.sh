# revperf show ID judges a comparison as it was judged: with the tolerances and the metrics
# and primary lists recorded with its plan (schema 12), not those revperf.ini says now, and
# warns of each that differs. Before, a tolerance raised from 2% to 5% after the comparison
# turned its `worse` (B 3% above A, exit 1) into `equal` in show, exit_code 0, without a
# word; and `primary = wall` made show's exit_code 0 with v no longer primary. compare
# BASE TARGET, showing the finished comparison in place, judges with the configuration and
# says so.
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
# compare BASE TARGET shows the finished comparison in place judged with the configuration
# (what it was asked), and says that it is judged again.
expect_exit 0 "$REVPERF" compare a b -f json
[ "$(key out.txt)" = "(['equal'], 0.05, 0)" ] || fail "compare in place: $(key out.txt)"
expect_grep 'judged it with tolerance 2%; the configuration now says 5%: judged again with the configuration' err.txt

# The metrics and primary lists changed too: shown as compared.
sed -i 's/^primary = v$/primary = wall/; s/^metrics = v$/metrics = v, wall/' revperf.ini
git commit -qam "wall primary"
expect_exit 0 "$REVPERF" show 1 -f json
key2() { json_get "$1" "([(m['name'], m['verdict'], m['primary']) for m in d['benchmarks'][0]['metrics']], d['exit_code'])"; }
[ "$(key2 out.txt)" = "$(key2 compared.json)" ] || fail "show: $(key2 out.txt), compare: $(key2 compared.json)"
expect_grep 'judged it with primary = v; the configuration now says wall' err.txt
expect_grep 'judged it with metrics = v; the configuration now says v, wall' err.txt
# A metric the configuration no longer defines (metric.v gone): judged with the
# configuration's lists, and said so, rather than an error about revperf.ini.
cp revperf.ini kept.ini
sed -i '/^metric.v/d; s/^metrics = v, wall$/metrics = wall/' revperf.ini
git commit -qam "v gone"
expect_exit 0 "$REVPERF" show 1
expect_grep 'judged it with metrics = v; the configuration now says wall and no longer defines v' err.txt
cp kept.ini revperf.ini
git commit -qam "v back"

# The runs range changed: show takes the looks the comparison planned (the alpha per look
# its interval was decided at), not those of runs = 3..30. Before, show's ci_level was
# 0.99925 where compare's was 0.998125.
sed -i 's/^runs = 3..6$/runs = 3..30/' revperf.ini
git commit -qam "more runs"
expect_exit 0 "$REVPERF" show 1 -f json
lvl() { json_get "$1" "(d['benchmarks'][0]['ci_level'], [m['ci'] for m in d['benchmarks'][0]['metrics']])"; }
[ "$(lvl out.txt)" = "$(lvl compared.json)" ] || fail "show: $(lvl out.txt), compare: $(lvl compared.json)"
expect_grep 'v: comparison 1 planned runs 3..6; the configuration now says 3..30: shown as it was judged' err.txt

# A comparison made now is judged with the new tolerance.
expect_exit 0 "$REVPERF" compare a b -q -f json --fresh
[ "$(json_get out.txt "d['benchmarks'][0]['tolerance']")" = 0.05 ] || fail "compare now: $(cat out.txt)"
echo ok
