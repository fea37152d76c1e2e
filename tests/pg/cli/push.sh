#!/bin/bash
# revperf push (docs/store.md): a developer's SQLite store copied into the shared
# PostgreSQL store, idempotently: a second push adds nothing; a push after more work adds
# only the new; what the shared store shows (verdicts, history, report) is what the local
# store showed. Through tests/pg/run.sh (REVPERF_STORE: the shared database).
. "$SRCDIR/tests/cli/lib/common.bash"
: "${REVPERF_STORE:?run through tests/pg/run.sh}"
. "$PG_ENV"
shared=$REVPERF_STORE
unset REVPERF_STORE
q() { "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$shared" -c "$1"; }
ql() { sqlite3 .revperf/revperf.db "$1"; }

make_tiny_repo p && cd p
# A deterministic metric (the benchmark prints its work), so that verdicts do not depend
# on the machine's load: 2000 at base, 8000 at slow.
cat >>revperf.ini <<'INI'
metric.work = /^work ([0-9]+)$/
primary = work
INI
printf 'echo work 2000\n' >work.sh
git add -A && git commit -qm work && git tag w1
printf 'echo work 8000\n' >work.sh
git commit -qam slow && git tag slow

# Nothing to push yet, no shared store named: one line each, exit 2.
expect_exit 2 "$REVPERF" push --store "$shared"
expect_one_line err.txt
expect_grep "no local results at .*revperf.db" err.txt
expect_exit 2 "$REVPERF" push
expect_one_line err.txt
expect_grep "no store named" err.txt

# Local work: a comparison (worse), its verdict from the deterministic metric.
expect_exit 1 "$REVPERF" compare -q -r 3..3 -w 0 w1 slow
local_runs=$(ql 'select count(*) from runs')
[ "$local_runs" = 6 ] || fail "expected 6 local runs, got $local_runs"

expect_exit 0 "$REVPERF" push --store "$shared"
expect_grep "^pushed .*revperf.db to postgresql://.*: 1 comparison, 6 runs, 0 profiled runs, 2 builds, 0 dynamic data added; 0 comparisons, 0 runs already there$" out.txt
[ "$(q 'select count(*) from runs')" = 6 ] || fail "runs in the shared store: $(q 'select count(*) from runs')"
[ "$(q 'select count(*) from metric_values')" = "$(ql 'select count(*) from metric_values')" ] ||
	fail "metric values differ"
[ "$(q "select verdict from verdicts where metric = 'work'")" = worse ] || fail "verdict not pushed"
[ "$(q "select count(*) from comparisons where status = 'done'")" = 1 ] || fail "comparison"
# the machine it recorded (schema 13), mapped to the shared store's row of that machine
host=$(ql "select m.hostname from comparisons c join machines m on m.id = c.machine_id")
[ -n "$host" ] || fail "the local comparison recorded no machine"
[ "$(q "select m.hostname from comparisons c join machines m on m.id = c.machine_id")" = "$host" ] ||
	fail "the comparison's machine was not pushed: $(q 'select machine_id from comparisons')"
[ "$(q 'select count(*) from run_logs')" = 6 ] || fail "the runs' logs were not pushed"
[ "$(q 'select count(*) from build_logs')" = 2 ] || fail "the builds' logs were not pushed"

# Again: nothing added.
expect_exit 0 "$REVPERF" push --store "$shared" -f json
[ "$(json_get out.txt 'd["added"]["runs"]')" = 0 ] || fail "a second push added runs: $(cat out.txt)"
[ "$(json_get out.txt 'd["present"]["runs"]')" = 6 ] || fail "$(cat out.txt)"
[ "$(json_get out.txt 'd["added"]["comparisons"]')" = 0 ] || fail "$(cat out.txt)"
[ "$(q 'select count(*) from runs')" = 6 ] || fail "a second push duplicated runs"
[ "$(q 'select count(*) from verdicts')" = "$(ql 'select count(*) from verdicts')" ] ||
	fail "verdicts duplicated"

# The shared store judges as the local one did: compare --store reuses the pushed runs
# (same commits, same build command, same benchmark, same machine) and runs nothing.
expect_exit 1 "$REVPERF" compare -q --store "$shared" -r 3..3 -w 0 w1 slow
[ "$(q 'select count(*) from runs')" = 6 ] || fail "compare on the shared store ran again"
expect_exit 0 "$REVPERF" report --store "$shared" -q -o site
[ -f site/index.html ] || fail "no report from the shared store"

# More local work, pushed: only the new comparison and its runs.
git commit -q --allow-empty -m next && git tag next
expect_exit 0 "$REVPERF" compare -q -r 3..3 -w 0 slow next
expect_exit 0 "$REVPERF" push --store "$shared"
expect_grep ": 1 comparison, 6 runs, 0 profiled runs, 1 build, 0 dynamic data added; 1 comparison, 6 runs already there$" out.txt
[ "$(q 'select count(*) from runs')" = 12 ] || fail "after the second comparison: $(q 'select count(*) from runs') runs"

# A second developer (another store, the same commits): its builds are the shared
# store's (same commit and command), its comparison and runs are its own.
expect_exit 1 "$REVPERF" compare -q --state-dir ../other -r 3..3 -w 0 w1 slow
expect_exit 0 "$REVPERF" push --state-dir ../other --store "$shared"
expect_grep ": 1 comparison, 6 runs, 0 profiled runs, 0 builds, 0 dynamic data added; 0 comparisons, 0 runs already there$" out.txt
[ "$(q 'select count(*) from builds')" = 3 ] || fail "builds of the same commits were duplicated"

# Pushing the shared store into itself, or a store of another program: refused.
expect_exit 2 "$REVPERF" push --from "$shared" --store "$shared"
expect_one_line err.txt
sqlite3 "$TEST_TMP/theirs.db" 'create table t(x); insert into t values(1)'
expect_exit 2 "$REVPERF" push --from "$TEST_TMP/theirs.db" --store "$shared"
expect_one_line err.txt
expect_grep "another program" err.txt
[ "$(q 'select count(*) from runs')" = 18 ] || fail "a refused push changed the shared store"
echo "ok"
