#!/bin/bash
# bench/queue.sh REVPERF [JOBS] [WORKERS...]
# The queue's own cost (docs/team.md), on a PostgreSQL server of its own (tests/pg/
# pg_server.sh: Debian's server, a temporary directory, a free loopback port):
#  1. claim latency: bench/queue_claim_bench (built next to REVPERF) queues 100 jobs and
#     claims 100, then queues 10,000 and claims 1,000 of them, timing each claim
#     (store_job_claim(): the UPDATE of the row FOR UPDATE SKIP LOCKED chose) and finish;
#     the same on SQLite for comparison;
#  2. jobs per minute with 1, 2 and 4 workers (or WORKERS...): JOBS (default 24)
#     compare jobs (`revperf submit compare HEAD~i HEAD~(i-1)`, queued before the clock
#     starts) of consecutive commits of a generated project whose build is `true` and
#     whose one benchmark is `true`, 2 runs a side, no warm-up, so that the queue, the
#     worker and revperf's own start-up are what is measured; each worker a process of
#     its own with its own clone (its own build cache) and machine name, --idle 0.1. The
#     clock runs from the workers' start to the last job's end (the database's
#     finished_at is in whole seconds: the script polls every 0.1 s instead);
#  3. the same JOBS comparisons run one after another by `revperf compare` in a clone,
#     without the queue (into a database of their own): what a job costs without it.
set -eu
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
JOBS=${2:-24}
shift $(($# >= 2 ? 2 : 1))
WORKERS=${*:-1 2 4}
HERE=$(cd "$(dirname "$0")" && pwd)
CLAIM=$(dirname "$REVPERF")/bench/queue_claim_bench
[ -x "$CLAIM" ] || { echo "queue.sh: no $CLAIM (build the bench programs)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/revperf-bench-queue.XXXXXX")
PIDS=""
cleanup() {
	for p in $PIDS; do kill -9 "$p" 2>/dev/null || true; done
	bash "$HERE/../tests/pg/pg_server.sh" stop "$WORK/pg" >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT
bash "$HERE/../tests/pg/pg_server.sh" start "$WORK/pg"
[ ! -f "$WORK/pg/skip" ] || { echo "queue.sh: $(cat "$WORK/pg/skip")" >&2; exit 2; }
. "$WORK/pg/pg.env"
newdb() { bash "$HERE/../tests/pg/pg_server.sh" createdb "$WORK/pg" "$1"; }
q() { "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$1" -c "$2"; }

echo "== claim latency (machine load: $(cut -d' ' -f1-3 /proc/loadavg))"
"$CLAIM" "$(newdb claim100)" 100 100
"$CLAIM" "$(newdb claim10k)" 10000 1000
"$CLAIM" "$WORK/claim100.db" 100 100
"$CLAIM" "$WORK/claim10k.db" 10000 1000

# The project: JOBS + 1 commits, each compared with its parent.
mkdir "$WORK/p" && cd "$WORK/p"
git init -q . && git config user.email b@example.com && git config user.name bench
printf '[build]\ncommand = true\n[benchmark "noop"]\ncommand = true\nruns = 2..2\nwarmup = 0\n' >revperf.ini
git add -A && git commit -qm c0
for i in $(seq "$JOBS"); do git commit -q --allow-empty -m "c$i"; done
for w in $(seq 4); do git clone -q "$WORK/p" "$WORK/w$w"; done

echo "== jobs per minute: $JOBS jobs of a no-op benchmark"
for n in $WORKERS; do
	url=$(newdb "jobs$n")
	cd "$WORK/p"
	for i in $(seq "$JOBS" -1 1); do
		REVPERF_STORE=$url "$REVPERF" submit compare "HEAD~$i" "HEAD~$((i - 1))" -q
	done
	for w in $(seq 4); do rm -rf "$WORK/w$w/.revperf"; done
	load=$(cut -d' ' -f1 /proc/loadavg)
	t0=$(date +%s.%N)
	PIDS=""
	for w in $(seq "$n"); do
		(cd "$WORK/w$w" && REVPERF_STORE=$url exec "$REVPERF" worker --machine "bench$w" \
			--idle 0.1 -q >/dev/null 2>"$WORK/w$w.err") &
		PIDS="$PIDS $!"
	done
	while [ "$(q "$url" "select count(*) from jobs where state in ('done', 'failed')")" -lt "$JOBS" ]; do
		sleep 0.1
	done
	t1=$(date +%s.%N)
	for p in $PIDS; do kill -TERM "$p"; wait "$p" || true; done
	PIDS=""
	failed=$(q "$url" "select count(*) from jobs where state = 'failed'")
	twice=$(q "$url" "select count(*) from jobs where attempts > 1")
	per=$(q "$url" "select string_agg(machine || ' ' || n, ', ' order by machine) from (select machine, count(*) n from jobs group by machine) x")
	awk -v n="$n" -v j="$JOBS" -v t0="$t0" -v t1="$t1" -v l="$load" -v f="$failed" -v tw="$twice" -v per="$per" 'BEGIN {
		printf "%d worker%s: %d jobs in %.1f s = %.1f jobs/min (load %s at the start; %d failed, %d claimed twice; %s)\n",
			n, n == 1 ? "" : "s", j, t1 - t0, j / (t1 - t0) * 60, l, f, tw, per }'
done

echo "== the same $JOBS comparisons without the queue: revperf compare one after another"
url=$(newdb direct)
rm -rf "$WORK/w1/.revperf"
cd "$WORK/w1"
load=$(cut -d' ' -f1 /proc/loadavg)
t0=$(date +%s.%N)
for i in $(seq "$JOBS" -1 1); do
	REVPERF_STORE=$url "$REVPERF" compare -q "HEAD~$i" "HEAD~$((i - 1))" >/dev/null 2>&1 || [ $? = 1 ]
done
t1=$(date +%s.%N)
awk -v j="$JOBS" -v t0="$t0" -v t1="$t1" -v l="$load" 'BEGIN {
	printf "no queue: %d comparisons in %.1f s = %.1f per min (load %s at the start)\n",
		j, t1 - t0, j / (t1 - t0) * 60, l }'
