# A benchmark whose metrics are all counted (-m ir --primary ir) makes no timing run: only
# its counted runs under valgrind. Before, it made 1 warm-up + 5 timed runs per side that
# stored no value (2 minutes of a 10 s benchmark), then the valgrind runs. With no timeout
# known, one warm-up of A without valgrind sets the counted runs' timeout (10 x its time,
# at least 60 s, x 10 under valgrind): before, they started from the first timing run's
# 600 s, so a benchmark that hangs held each counted run for 6,000 s. The reports say so instead of "0 + 0 runs"; a failing side is still the benchmark
# failing (target broken: exit 1; baseline: exit 2), its counted runs recorded as failed;
# show, compare again, --more, history and report work from the counted runs alone.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

runs() { db_query "$1" "SELECT count(*) FROM runs WHERE warmup = 0"; }
warmups() { db_query "$1" "SELECT side || ':' || count(*) FROM runs WHERE warmup = 1 GROUP BY side"; }

# Two commands: no timing run in the runs table, one warm-up of A that set the counted
# runs' timeout (at least 60 s x 10), the counted verdict, the text says why.
expect_exit 0 "$REVPERF" compare --cmd-a /bin/true --cmd-b /bin/true -m ir --primary ir -q
db=$PWD/.revperf/revperf.db
[ "$(runs "$db")" = 0 ] || fail "timing runs made: $(db_query "$db" "SELECT side, warmup, count(*) FROM runs GROUP BY 1, 2")"
[ "$(warmups "$db")" = A:1 ] || fail "warm-ups: $(warmups "$db")"
expect_grep '^command: no timing runs needed \(every metric asked is counted: see the counted runs below; a warm-up of A without valgrind set their timeout: 600 s\), [0-9.]+ s; count tolerance 0.1%$' out.txt
# A timeout given: no warm-up, the timeout is the user's.
store_wipe .revperf
expect_exit 0 "$REVPERF" compare --cmd-a /bin/true --cmd-b /bin/true -m ir --primary ir -q --timeout 5
[ "$(db_query "$db" "SELECT count(*) FROM runs")" = 0 ] || fail "runs made with a timeout given: $(warmups "$db")"
expect_grep '^command: no timing runs needed \(every metric asked is counted: see the counted runs below\), [0-9.]+ s; count tolerance 0.1%$' out.txt
expect_grep '^  ir \* +equal +1.000' out.txt
expect_grep 'counted under valgrind \(callgrind, 2 \+ 2 runs, [0-9.]+ s\); instructions are not time: no metric was timed' out.txt
expect_no_grep '0 \+ 0 runs' out.txt

# JSON: counted_only, no runs or looks, the counted runs in counted.
expect_exit 0 "$REVPERF" compare --cmd-a /bin/true --cmd-b /bin/true -m ir --primary ir -q -f json
json_get out.txt "d['schema']" | grep -qx 'revperf-compare/6' || fail "schema: $(json_get out.txt "d['schema']")"
[ "$(json_get out.txt "(b['counted_only'], b['runs']['baseline']['ok'], b['looks'], b['counted']['runs'], b['metrics'][0]['verdict']) if (b := d['benchmarks'][0]) else 0")" = \
	"(True, 0, 0, [2, 2], 'equal')" ] || fail "JSON: $(json_get out.txt "d['benchmarks'][0]")"

# A target that fails: broken (exit 1), its counted runs recorded as failed.
store_wipe .revperf
expect_exit 1 "$REVPERF" compare --cmd-a /bin/true --cmd-b 'sh -c "exit 1"' -m ir --primary ir -q
expect_grep '^  target broken: 2 of 2 counted runs failed on side B \(B\)' out.txt
expect_grep '^  command: target broken$' out.txt
[ "$(runs "$db")" = 0 ] || fail "timing runs made by the failing comparison"
[ "$(db_query "$db" "SELECT status, count(*) FROM profiles WHERE kind = 'vg-ir' GROUP BY status ORDER BY status")" = \
	"$(printf 'failed|2\nok|2')" ] || fail "counted runs: $(db_query "$db" "SELECT side, status FROM profiles")"
expect_exit 1 "$REVPERF" compare --cmd-a /bin/true --cmd-b 'sh -c "exit 1"' -m ir --primary ir -q -f json
[ "$(json_get out.txt "d['benchmarks'][0]['target_broken']")" = True ] || fail "JSON: not target_broken"
# show says what compare said (before, "unmeasured"), from the failed runs it stored.
expect_exit 0 "$REVPERF" show
expect_grep '^  target broken: 2 of 2 counted runs failed on side B \(B\)' out.txt
expect_grep '^  command: target broken$' out.txt
expect_grep 'the first: side B failed \(exited with status 1\); [^ ]*/B-0.log; if valgrind' out.txt
# A baseline that fails: not compared (exit 2).
expect_exit 2 "$REVPERF" compare --cmd-a 'sh -c "exit 1"' --cmd-b /bin/true -m ir --primary ir -q
expect_grep '^  error: 2 of 2 counted runs failed on side A \(A\)' out.txt

# Interrupted after the target's first counted run failed: show says what compare said
# (interrupted, not compared because side B failed: before, show judged the failure as if
# the comparison had ended).
store_wipe .revperf
rm -f "$TEST_TMP/count"
{ signal_at_run 2 INT "$TEST_TMP/pid"; echo "echo v"; } >a.sh
"$REVPERF" compare --cmd-a 'sh ./a.sh' --cmd-b 'sh -c "exit 1"' -m ir --primary ir >out.txt 2>err.txt &
echo $! >"$TEST_TMP/pid"
got=0
wait $! || got=$?
[ "$got" = 130 ] || { cat out.txt err.txt; fail "interrupted: exit $got"; }
expect_grep '^  ir \* +unmeasured +interrupted before a verdict' out.txt
expect_exit 0 "$REVPERF" show
expect_no_grep 'counted runs failed on side B|not compared' out.txt

# Two revisions: the target executes more instructions.
store_wipe .revperf
make_tiny_repo proj
cd proj
printf 'metrics = ir\nprimary = ir\n' >>revperf.ini
git commit -qam "ir only"
printf 'i=0; while [ $i -lt 4000 ]; do i=$((i+1)); done\n' >work.sh
git commit -qam slower
expect_exit 1 "$REVPERF" compare HEAD~1 HEAD -q
db=$PWD/.revperf/revperf.db
[ "$(runs "$db")" = 0 ] || fail "timing runs made in git mode"
expect_grep '^spin: no timing runs needed' out.txt
expect_grep '^  ir \* +worse' out.txt
cp out.txt first.txt
# Markdown: the counted runs in the runs column.
expect_exit 0 "$REVPERF" show -f markdown
expect_grep '^\| spin \| ir \(primary\) \| .*worse.* \| 2 \+ 2 runs \|' out.txt
# show: the same verdict, from the counted runs.
expect_exit 0 "$REVPERF" show
expect_grep '^spin: no timing runs needed \(every metric asked is counted: see the counted runs below\), shown from the store' out.txt
expect_grep '^  ir \* +worse' out.txt
# Compare again: finished, shown from the store, nothing run.
expect_exit 1 "$REVPERF" compare HEAD~1 HEAD
expect_grep 'is finished; shown from the store' err.txt
[ "$(db_query "$db" "SELECT count(*) FROM comparisons")" = 1 ] || fail "compare again made a comparison"
# --more: says that it has nothing to add; runs nothing.
[ "$(warmups "$db")" = A:1 ] || fail "warm-ups: $(warmups "$db")"
expect_exit 1 "$REVPERF" compare HEAD~1 HEAD -q --more
expect_grep 'spin: --more adds timing runs, and its metrics are all counted' err.txt
expect_grep 'none added; for more of them raise count-runs' err.txt
[ "$(runs "$db")" = 0 ] || fail "--more made timing runs"
# No counted run is made (the stored ones answer): no warm-up to set their timeout either.
[ "$(warmups "$db")" = A:1 ] || fail "--more made a warm-up for no counted run: $(warmups "$db")"
expect_no_grep 'set their timeout' out.txt
[ "$(db_query "$db" "SELECT count(*) FROM profiles")" = 4 ] || fail "--more made counted runs"
# history and report see the commits measured by counted runs alone.
expect_exit 0 "$REVPERF" history -m ir
expect_grep 'spin ir: worse x' out.txt
expect_exit 0 "$REVPERF" report -o site -q
[ -f site/index.html ] || fail "no report"
page=site/commits/$(git rev-parse HEAD).html
[ -f "$page" ] || fail "no page of the measured commit in the report"
expect_grep 'No timing run: its metrics are all counted' "$page"
echo ok
