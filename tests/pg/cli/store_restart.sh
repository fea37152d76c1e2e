#!/bin/bash
# The server restarts while a comparison runs (docs/store.md, "Connections"): revperf
# notices the dropped connection before its next statement, connects again (waiting while
# the server is down) and goes on; every run is stored once, as it ended. A server that
# does not come back within the wait (REVPERF_RECONNECT_S) ends the command with one line,
# exit 2, and the runs stored before stay. The test restarts a server of its own, not the
# one the other tests share (tests/pg/run.sh starts it only for the skip).
. "$SRCDIR/tests/cli/lib/common.bash"
. "$SRCDIR/tests/pg/lib/pausing.bash"
state=$TEST_TMP/pg
bash "$SRCDIR/tests/pg/pg_server.sh" start "$state" || fail "no server of its own"
if [ -f "$state/skip" ]; then
	echo "SKIP: $(cat "$state/skip")"
	exit 77
fi
trap 'bash "$SRCDIR/tests/pg/pg_server.sh" stop "$state" >/dev/null 2>&1; rm -rf "$TEST_TMP"' EXIT
. "$state/pg.env"
url=$(bash "$SRCDIR/tests/pg/pg_server.sh" createdb "$state" restart) || fail "createdb"
export REVPERF_STORE=$url
q() { "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$url" -c "$1"; }

make_tiny_repo p && cd p
# Each run counts itself; the 4th waits for the test (file `paused`, then `resume`), so
# that the server is down while a benchmark runs, not while a run is being stored.
write_pausing_work work.sh
git add -A && git commit -qm pausing && git tag v1
git commit -q --allow-empty -m next
export COUNTER=$TEST_TMP/counter FLAGS=$TEST_TMP PAUSE_AT=4

# wait_for FILE: up to 120 s.
wait_for() {
	for _ in $(seq 1200); do [ -e "$1" ] && return 0; sleep 0.1; done
	fail "$1 did not appear"
}

# 1. Down for 3 s mid-run, then up again: the comparison completes, nothing lost.
"$REVPERF" compare -r 5..5 -w 1 -t 90% v1 HEAD >out.txt 2>err.txt &
pid=$!
wait_for "$TEST_TMP/paused"
bash "$SRCDIR/tests/pg/pg_server.sh" bounce "$state" 3 || fail "the server did not restart"
touch "$TEST_TMP/resume"
rc=0
wait $pid || rc=$?
[ $rc = 0 ] || { cat out.txt err.txt; fail "compare across a restart exited $rc"; }
expect_grep "the connection was lost .*; connecting again for up to [0-9]+ s" err.txt
expect_grep "connected again" err.txt
# 2 sides x (1 warm-up + 5 runs), each run once
[ "$(cat "$COUNTER")" = 12 ] || fail "expected 12 runs, the benchmark ran $(cat "$COUNTER") times"
[ "$(q 'select count(*) from runs')" = 12 ] || fail "runs stored: $(q 'select count(*) from runs'), expected 12"
[ "$(q "select count(*) from comparisons where status = 'done'")" = 1 ] || fail "the comparison is not done"

# 2. Down for good: the next statement waits REVPERF_RECONNECT_S, then one line, exit 2;
# the runs stored before the outage stay (the server comes back for the check).
rm -f "$TEST_TMP/paused" "$TEST_TMP/resume" "$COUNTER"
git commit -q --allow-empty -m third
REVPERF_RECONNECT_S=2 "$REVPERF" compare -r 5..5 -w 1 -t 90% v1 HEAD >out.txt 2>err.txt &
pid=$!
wait_for "$TEST_TMP/paused"
stored=$(q 'select count(*) from runs')
bash "$SRCDIR/tests/pg/pg_server.sh" stop-keep "$state" || fail "the server did not stop"
touch "$TEST_TMP/resume"
rc=0
wait $pid || rc=$?
bash "$SRCDIR/tests/pg/pg_server.sh" start-again "$state" || fail "the server did not start again"
[ $rc = 2 ] || { cat out.txt err.txt; fail "compare without a server exited $rc, expected 2"; }
expect_grep "^revperf: error: database postgresql://.*: cannot record a run: " err.txt
[ "$(grep -c '^revperf: error' err.txt)" = 1 ] || { cat err.txt; fail "expected one error line"; }
[ "$(q 'select count(*) from runs')" = "$stored" ] || fail "runs stored before the outage were lost"
[ "$stored" -ge 3 ] || fail "expected the runs before the pause stored, got $stored"
echo "ok"
