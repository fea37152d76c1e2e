#!/bin/sh
# bench/history.sh REVPERF [COMMITS] [ROUNDS]
# What `revperf history` adds beyond the benchmark runs and the builds themselves, per
# commit: a generated repository of COMMITS commits (default 50), a build command
# (`sh build.sh`, a few ms) and a benchmark that does nothing (`true`, 3 + 3 runs, no
# warm-up), so that revperf's own work dominates. For each of ROUNDS rounds (default 3):
#   first:  `revperf history -n COMMITS` on an empty state directory; overhead =
#           wall - sum of the runs' wall times - sum of the builds' durations (both read from
#           the database), divided by COMMITS;
#   again:  the same command once more (every comparison reused: nothing runs), per commit.
set -eu
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
N=${2:-50}
ROUNDS=${3:-3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/revperf-bench-history.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
cd "$WORK"
git init -q . && git config user.email b@example.com && git config user.name bench
cat >revperf.ini <<'INI'
[build]
command = sh build.sh
[benchmark "noop"]
command = true
metrics = wall, cpu
runs = 3..3
warmup = 0
INI
echo 'echo built >built.txt' >build.sh
git add . && git commit -qm base
i=0
while [ $i -lt "$N" ]; do
	i=$((i + 1))
	echo "$i" >>notes.txt && git add notes.txt && git commit -qm "commit $i"
done
now_ns() { date +%s%N; }
q() { sqlite3 .revperf/revperf.db "$1"; }
r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	rm -rf .revperf
	t0=$(now_ns)
	"$REVPERF" history -n "$N" -q >/dev/null 2>&1
	t1=$(now_ns)
	"$REVPERF" history -n "$N" -q >/dev/null 2>&1
	t2=$(now_ns)
	runs_ns=$(q "select cast(coalesce(sum(value), 0) * 1e9 as integer) from metric_values
		where metric = 'wall'")
	builds_ns=$(q "select coalesce(sum(duration_ns), 0) from builds")
	nruns=$(q "select count(*) from runs")
	nbuilds=$(q "select count(*) from builds")
	awk -v t="$((t1 - t0))" -v a="$((t2 - t1))" -v rn="$runs_ns" -v bn="$builds_ns" \
		-v n="$N" -v nr="$nruns" -v nb="$nbuilds" 'BEGIN {
		printf "round: %d commits, %d runs (%.0f ms), %d builds (%.0f ms), history %.0f ms: " \
		       "overhead %.1f ms per commit; again (all reused) %.1f ms per commit\n",
		       n, nr, rn / 1e6, nb, bn / 1e6, t / 1e6, (t - rn - bn) / 1e6 / n, a / 1e6 / n }'
	done
