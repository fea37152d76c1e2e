#!/bin/bash
# A worker killed with -9 mid-job (docs/team.md, "When a worker dies"): its benchmark dies
# with it, the job stays running until its lease (on the server's clock) runs out, then the
# same machine's worker restarted resumes it: the runs stored before the kill are reused,
# the comparison ends with exactly the runs it asked for, none measured twice.
. "$SRCDIR/tests/cli/lib/common.bash"
. "$SRCDIR/tests/pg/lib/queue.bash"
trap 'queue_cleanup; rm -rf "$TEST_TMP"' EXIT

make_queue_repo p 8
cd p
runs_ok() { q "select count(*) from runs where status = 'ok' and warmup = 0"; }
at_least() { [ "$(runs_ok)" -ge "$1" ]; }

expect_exit 0 "$REVPERF" submit compare base next
expect_grep "^queued job 1: compare base next" out.txt

start_worker mA . --lease 4
wait_until 120 "3 runs stored" at_least 3
kill -9 "$WORKER_PID"
wait "$WORKER_PID" 2>/dev/null || true
# The benchmark died with the worker (PR_SET_PDEATHSIG, then revperf's own).
for _ in $(seq 50); do survivors || break; sleep 0.1; done
! survivors || fail "a benchmark survived the worker's kill -9"
before=$(runs_ok)
[ "$before" -ge 3 ] && [ "$before" -lt 16 ] || fail "$before runs stored at the kill"
[ "$(q "select state || ' ' || attempts from jobs where id = 1")" = "running 1" ] ||
	fail "after the kill: $(q 'select state, attempts from jobs')"

# The queue shows the lease running out (the server's clock), then a worker takes it.
lease_gone() { [ "$(q "select lease_until < cast(extract(epoch from now()) as bigint) from jobs where id = 1")" = t ]; }
wait_until 30 "the lease ran out" lease_gone
expect_exit 0 "$REVPERF" queue
expect_grep "running +compare +compare base next +on mA \(host .*\).*lease ran out" out.txt

start_worker mA . --once --lease 4
wait_pid "$WORKER_PID" 180
[ "$WAIT_RC" = 0 ] || { cat "$TEST_TMP/mA.err"; fail "the restarted worker exited $WAIT_RC"; }
[ "$(q "select state || ' ' || attempts from jobs where id = 1")" = "done 2" ] ||
	fail "job: $(q 'select state, attempts, error from jobs')"
# Exactly 8 runs per side on machine mA, and the resumed comparison measured only what
# was missing.
[ "$(runs_ok)" = 16 ] || fail "$(runs_ok) runs stored, expected 16"
[ "$(q "select count(distinct m.hostname) from runs r join machines m on m.id = r.machine_id")" = 1 ] ||
	fail "runs of several machines"
[ "$(q "select hostname from machines")" = mA ] || fail "machine: $(q 'select hostname from machines')"
last=$(q "select max(id) from comparisons")
new=$(q "select count(*) from runs where comparison_id = $last and warmup = 0")
[ "$new" = $((16 - before)) ] || fail "the resumed comparison measured $new runs, expected $((16 - before))"
# Each benchmark execution counted itself: the stored runs, plus at most one per side cut
# short by the kill.
executed=$(wc -l <"$COUNTER")
[ "$executed" -ge 16 ] && [ "$executed" -le 18 ] || fail "the benchmark ran $executed times for 16 runs"
[ "$(q "select status from comparisons where id = $last")" = done ] || fail "comparison not done"
expect_grep "== revperf worker mA: job 1 \(compare base next\), attempt 2 ==" .revperf/worker/job-1.log
echo "ok: $before runs before the kill, $new after, $executed executions"
