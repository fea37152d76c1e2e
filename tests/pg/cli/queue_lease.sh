#!/bin/bash
# The lease's other ends (docs/team.md, "When something fails"): a worker stopped with
# SIGTERM mid-job stops the job's command and gives the job back to the queue; a worker whose job was
# taken over (its lease ran out and another worker holds the job now) stops the job's
# command at its next renewal and leaves the job alone; a job whose worker was lost three
# times is failed by the next claim instead of being run again.
. "$SRCDIR/tests/cli/lib/common.bash"
. "$SRCDIR/tests/pg/lib/queue.bash"
trap 'queue_cleanup; rm -rf "$TEST_TMP"' EXIT

SLEEP_S=0.5 make_queue_repo p 20
cd p
expect_exit 0 "$REVPERF" submit compare base next -q
runs_ok() { [ "$(q "select count(*) from runs where status = 'ok'")" -ge "$1" ]; }
start_worker mA . --lease 3
wait_until 120 "a run stored" runs_ok 1
kill -TERM "$WORKER_PID"
wait_pid "$WORKER_PID" 60
[ "$WAIT_RC" = 143 ] || fail "the worker exited $WAIT_RC on SIGTERM"
for _ in $(seq 50); do survivors || break; sleep 0.1; done
! survivors || fail "the job's benchmark still runs after the worker's SIGTERM"
[ "$(q "select state || ' ' || coalesce(worker, '-') || ' ' || coalesce(lease_until, 0) from jobs where id = 1")" = "queued - 0" ] ||
	fail "the job after SIGTERM: $(q 'select state, worker, lease_until from jobs where id = 1')"
expect_exit 0 "$REVPERF" queue
expect_grep "^ +1  queued +compare +compare base next  \(given back after 1 attempt\)$" out.txt

start_worker mA . --lease 3
wait_until 120 "2 runs stored" runs_ok 2
# Running: its worker, its progress (runs this machine stored since the claim, renewed
# every second), how long the lease still holds.
progress() { "$REVPERF" queue --no-color >q.txt && grep -qE "^ +1  running +compare +compare base next  on mA \(host [^,]+, pid [0-9]+\): [1-9][0-9]* runs? stored \(lease [0-3] s more, attempt 2\)$" q.txt; }
wait_until 30 "the progress shown" progress
# Another worker took the job over (as a claim after the lease ran out does).
q "update jobs set worker = 'mB (host elsewhere, pid 1)', machine = 'mB', attempts = attempts + 1 where id = 1"
stopped() { grep -q "job 1: its lease ran out and another worker took it; stopping its command here" "$TEST_TMP/mA.err"; }
wait_until 30 "the command stopped at the next renewal" stopped
for _ in $(seq 50); do survivors || break; sleep 0.1; done
! survivors || fail "the job's benchmark still runs after the takeover"
[ "$(q "select state || ' ' || worker from jobs where id = 1")" = "running mB (host elsewhere, pid 1)" ] ||
	fail "the job after the takeover: $(q 'select state, worker from jobs where id = 1')"
kill -TERM "$WORKER_PID"
wait_pid "$WORKER_PID" 60
expect_grep "worker mA: 0 jobs done, 0 failed, 1 lost" "$TEST_TMP/mA.out"
# The job is mB's, not given back by mA's SIGTERM.
[ "$(q "select worker from jobs where id = 1")" = "mB (host elsewhere, pid 1)" ] || fail "mA gave back mB's job"

# Lost three times: the lease ran out on the third attempt.
q "update jobs set attempts = 3, lease_until = cast(extract(epoch from now()) as bigint) - 10 where id = 1"
expect_exit 0 "$REVPERF" worker --once --machine mC
expect_grep "worker mC: 0 jobs done, 0 failed, 0 lost" out.txt
[ "$(q "select state from jobs where id = 1")" = failed ] || fail "the job lost 3 times: $(q 'select state from jobs where id = 1')"
q "select error from jobs where id = 1" >e.txt
expect_grep "^lost its worker 3 times \(killed, or its machine or network gone\); see the worker's log, then .revperf submit. it again$" e.txt
echo ok
