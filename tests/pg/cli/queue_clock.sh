#!/bin/bash
# A worker whose clock is two days behind (faketime): its lease is still right, because
# the lease is set and compared on the server's clock (now()), never the worker's. While
# it renews, a second worker with a right clock does not take its job.
. "$SRCDIR/tests/cli/lib/common.bash"
. "$SRCDIR/tests/pg/lib/queue.bash"
trap 'queue_cleanup; rm -rf "$TEST_TMP"' EXIT
if ! command -v faketime >/dev/null; then
	echo "SKIP: faketime is not installed (Debian package faketime; make deps installs it)"
	exit 77
fi
# Its library preloaded into the worker itself (not through the faketime program, which
# stays the worker's parent: a signal to it would not reach the worker).
lib=$(dpkg -L libfaketime 2>/dev/null | grep '/libfaketime\.so\.1$' | head -n 1)
[ -n "$lib" ] || { echo "SKIP: no libfaketime.so.1 (Debian package libfaketime)"; exit 77; }
# A wrong clock is a wrong CLOCK_REALTIME: the monotonic clock, which times runs and their
# time limits (in revperf and in its spawner, against the kernel's timers), has no date to
# be wrong about, so it is left alone (faked as well, a run's start and the kernel's timer
# disagree by the two days and every run "times out" at once).
export FAKETIME_DONT_FAKE_MONOTONIC=1
fake() { LD_PRELOAD=$lib FAKETIME=-2d "$@"; }
[ "$(fake date +%s)" -lt $(($(date +%s) - 86400)) ] || {
	echo "SKIP: libfaketime does not change the clock here"
	exit 77
}

# A sanitizer build refuses to start with faketime's library preloaded before its runtime
# ("ASan runtime does not come first"); it runs when told not to check the order.
if ! fake "$REVPERF" version >/dev/null 2>&1; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
	fake "$REVPERF" version >/dev/null 2>"$TEST_TMP/ft.err" || {
		echo "SKIP: revperf does not start under faketime here: $(head -n 1 "$TEST_TMP/ft.err")"
		exit 77
	}
fi

SLEEP_S=0.5 make_queue_repo p 6
git clone -q p w2
cd p
expect_exit 0 "$REVPERF" submit compare base next -q
# The worker with the wrong clock, alone first, so that it is the one that claims.
(LD_PRELOAD=$lib FAKETIME=-2d exec "$REVPERF" worker --machine slow --lease 3 --idle 0.2 \
	>"$TEST_TMP/slow.out" 2>"$TEST_TMP/slow.err") &
slow=$!
QUEUE_PIDS="$QUEUE_PIDS $slow"
claimed() { [ "$(q "select worker like 'slow %' from jobs where id = 1")" = t ]; }
wait_until 60 "the job claimed" claimed
start_worker right "$TEST_TMP/w2" --lease 3
# The lease, on the server's clock: never more than 3 s ahead, never behind by more than
# the renewal's margin, while the job runs (at least 6 s: 12 runs of 0.5 s).
samples=0
while [ "$(q "select state from jobs where id = 1")" = running ]; do
	d=$(q "select lease_until - cast(extract(epoch from now()) as bigint) from jobs where id = 1 and state = 'running'")
	[ -z "$d" ] && break
	[ "$d" -ge -1 ] && [ "$d" -le 3 ] || fail "lease_until is $d s from the server's now"
	samples=$((samples + 1))
	sleep 0.5
done
[ "$samples" -ge 3 ] || fail "only $samples looks at the lease while the job ran"
job_done() { [ "$(q "select state from jobs where id = 1")" = done ]; }
wait_until 120 "the job done" job_done
kill -TERM "$slow" "$WORKER_PID"
wait_pid "$slow" 60
[ "$WAIT_RC" = 143 ] || fail "the worker with the wrong clock exited $WAIT_RC on SIGTERM"
wait_pid "$WORKER_PID" 60
[ "$(q "select machine || ' ' || attempts from jobs where id = 1")" = "slow 1" ] ||
	fail "the job: $(q 'select machine, attempts, worker from jobs')"
# The worker's clock was wrong indeed: its comparison's times (the worker's) are two days
# behind the server's, the job's (the server's) are not.
[ "$(q "select cast(extract(epoch from now()) as bigint) - created_at > 86400 from comparisons")" = t ] ||
	fail "the comparison's time is not the worker's wrong clock"
[ "$(q "select abs(cast(extract(epoch from now()) as bigint) - finished_at) < 3600 from jobs where id = 1")" = t ] ||
	fail "the job's end is not on the server's clock"
[ "$(q "select count(*) from runs r join machines m on m.id = r.machine_id where m.hostname = 'right'")" = 0 ] ||
	fail "the right-clock worker measured for the job"
echo "ok: $samples looks at the lease"
