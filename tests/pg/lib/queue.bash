# Shared by the queue's tests (tests/pg/cli/queue_*.sh, tests/cli/queue_sqlite.sh): after
# tests/cli/lib/common.bash, against the database REVPERF_STORE names (tests/pg/run.sh).

# q SQL: one query on the test's PostgreSQL database, unaligned, no header.
q() {
	# shellcheck disable=SC1090
	(. "$PG_ENV" && "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$REVPERF_STORE" -c "$1")
}

# wait_until SECONDS WHAT CMD...: runs CMD every 0.2 s until it succeeds; fails the test
# naming WHAT after SECONDS.
wait_until() {
	local limit=$1 what=$2 i=0
	shift 2
	while ! "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -le $((limit * 5)) ] || fail "$what: not within $limit s"
		sleep 0.2
	done
}

# The PIDs of the workers this test started, killed (by PID) when it ends.
QUEUE_PIDS=""
queue_cleanup() {
	for pid in $QUEUE_PIDS; do
		kill -9 "$pid" 2>/dev/null || true
	done
}

# start_worker NAME DIR [ARGS...]: `revperf worker --machine NAME` in DIR, in the
# background; its PID in $WORKER_PID, its output in $TEST_TMP/NAME.out and .err.
start_worker() {
	local name=$1 dir=$2
	shift 2
	(cd "$dir" && exec "$REVPERF" worker --machine "$name" --idle 0.2 "$@" \
		>"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err") &
	WORKER_PID=$!
	QUEUE_PIDS="$QUEUE_PIDS $WORKER_PID"
}

# wait_pid PID SECONDS: waits for a worker this shell started to exit; fails after
# SECONDS (it is killed then). Its exit status in $WAIT_RC.
wait_pid() {
	local pid=$1 limit=$2 i=0
	while kill -0 "$pid" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt $((limit * 5)) ]; then
			kill -9 "$pid" 2>/dev/null
			fail "worker $pid still running after $limit s"
		fi
		sleep 0.2
	done
	WAIT_RC=0
	wait "$pid" || WAIT_RC=$?
}

# make_queue_repo DIR RUNS: a project whose benchmark "nap" sleeps SLEEP_S (default 0.2)
# through a uniquely named copy of sleep ($NAP, so that a check for survivors sees only
# this test's), each run appending a line to $COUNTER; RUNS runs per side, no warm-up;
# tags base and next (distinct commits, so that stored runs are reused).
make_queue_repo() {
	NAP=nap$RANDOM$$
	cp /bin/sleep "$TEST_TMP/$NAP"
	export COUNTER=$TEST_TMP/counter
	mkdir -p "$1" && cd "$1" || fail "cd $1"
	git init -q . && git config user.email t@example.com && git config user.name test
	printf 'echo run >>"$COUNTER"\nexec "%s" %s\n' "$TEST_TMP/$NAP" "${SLEEP_S:-0.2}" >nap.sh
	printf '[build]\ncommand = true\n[benchmark "nap"]\ncommand = sh ./nap.sh\nruns = %s..%s\nwarmup = 0\n' \
		"$2" "$2" >revperf.ini
	git add -A && git commit -qm base && git tag base
	git commit -q --allow-empty -m next && git tag next
	cd - >/dev/null
}

# survivors: whether a process of this test's sleeper still runs (zombies are dead).
survivors() { ps -C "$NAP" -o stat= | grep -qv '^Z'; }
