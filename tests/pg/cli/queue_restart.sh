#!/bin/bash
# PostgreSQL restarts while a worker's job runs (docs/team.md): the job's comparison and
# the worker's lease renewals wait for the server and connect again; the job ends done,
# once, every run stored once. The test restarts a server of its own, not the one the
# other tests share (tests/pg/run.sh starts that only for the skip).
. "$SRCDIR/tests/cli/lib/common.bash"
. "$SRCDIR/tests/pg/lib/pausing.bash"
. "$SRCDIR/tests/pg/lib/queue.bash"
state=$TEST_TMP/pg
bash "$SRCDIR/tests/pg/pg_server.sh" start "$state" || fail "no server of its own"
if [ -f "$state/skip" ]; then
	echo "SKIP: $(cat "$state/skip")"
	exit 77
fi
trap 'queue_cleanup; bash "$SRCDIR/tests/pg/pg_server.sh" stop "$state" >/dev/null 2>&1; rm -rf "$TEST_TMP"' EXIT
PG_ENV=$state/pg.env
REVPERF_STORE=$(bash "$SRCDIR/tests/pg/pg_server.sh" createdb "$state" queue_restart) || fail "createdb"
export REVPERF_STORE PG_ENV

make_tiny_repo p && cd p
# Each run counts itself; the 4th waits for the test (file `paused`, then `resume`), so
# that the server is down while a benchmark runs and the worker renews its lease.
write_pausing_work work.sh
git add -A && git commit -qm pausing && git tag v1
git commit -q --allow-empty -m next && git tag v2
export COUNTER=$TEST_TMP/counter FLAGS=$TEST_TMP PAUSE_AT=4

expect_exit 0 "$REVPERF" submit compare v1 v2 -q -- -r 5..5 -w 1 -t 90%
start_worker m1 . --lease 3
wait_until 120 "the 4th run" test -e "$TEST_TMP/paused"
bash "$SRCDIR/tests/pg/pg_server.sh" bounce "$state" 4 || fail "the server did not restart"
sleep 1 # a renewal (every second) across the restart
touch "$TEST_TMP/resume"
job_done() { [ "$(q "select state from jobs where id = 1")" = done ]; }
wait_until 180 "the job done after the restart" job_done
kill -TERM "$WORKER_PID"
wait_pid "$WORKER_PID" 60
cat "$TEST_TMP/m1.err"
[ "$(q "select attempts from jobs where id = 1")" = 1 ] || fail "the job was claimed again"
# 2 sides x (1 warm-up + 5 runs), each run once
[ "$(cat "$COUNTER")" = 12 ] || fail "expected 12 runs, the benchmark ran $(cat "$COUNTER") times"
[ "$(q 'select count(*) from runs')" = 12 ] || fail "runs stored: $(q 'select count(*) from runs'), expected 12"
[ "$(q "select count(*) from comparisons where status = 'done'")" = 1 ] || fail "the comparison is not done"
# The job's command saw the restart too, and went on.
expect_grep "the connection was lost .*; connecting again" .revperf/worker/job-1.log
expect_grep "connected again" .revperf/worker/job-1.log
expect_grep "connected again" "$TEST_TMP/m1.err" # the worker's own connection

# 2. Down longer than the store waits (REVPERF_RECONNECT_S=1) while the worker is idle:
# it says so, opens the store again every 2 s until the server is back, and takes the
# next job.
REVPERF_RECONNECT_S=1 start_worker m2 . --lease 3
sleep 1
bash "$SRCDIR/tests/pg/pg_server.sh" stop-keep "$state" || fail "the server did not stop"
sleep 5
kill -0 "$WORKER_PID" || fail "the worker ended while the server was down"
bash "$SRCDIR/tests/pg/pg_server.sh" start-again "$state" || fail "the server did not start again"
back() { grep -q "the store answers again; the worker goes on" "$TEST_TMP/m2.err"; }
wait_until 60 "the worker back" back
expect_exit 0 "$REVPERF" submit compare v2 v1 -q -- -r 2..2 -w 0 -t 90%
job2() { [ "$(q "select state || ' ' || machine from jobs where id = 2")" = "done m2" ]; }
wait_until 120 "the job after the outage done by the same worker" job2
kill -TERM "$WORKER_PID"
wait_pid "$WORKER_PID" 60
cat "$TEST_TMP/m2.err"
echo ok
