#!/bin/sh
# bench/report.sh REVPERF [REPS] [COMMITS] [BENCHES] [RUNS]
# `revperf report` over a generated history (bench/report_bench.c, built next to REVPERF
# in bench/): COMMITS commits (default 1000) x BENCHES benchmarks (10) x RUNS runs (10) x
# 3 metrics, each commit compared with its parent, with verdicts, steps (change points),
# crashed runs and failed builds. Generates the database once, then times REPS runs
# (default 5) of
#     revperf report --state-dir DIR --out DIR/site -q
# with /usr/bin/time (wall and max RSS), and prints each run, the median and the range.
# The goal (issue 8): at most 2 s for 1,000 commits x 10 benchmarks.
# With REVPERF_STORE set to a PostgreSQL connection string (an empty database), the
# history is generated there and the report reads it from there (issue 20: within 1.5x of
# SQLite).
set -eu
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
REPS=${2:-5}
GEN=$(dirname "$REVPERF")/bench/report_bench
[ -x "$GEN" ] || { echo "report.sh: no $GEN (build the bench programs)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "report.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/revperf-bench-report.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
"$GEN" "$WORK/state" "${3:-1000}" "${4:-10}" "${5:-10}"
i=0
while [ "$i" -lt "$REPS" ]; do
	i=$((i + 1))
	/usr/bin/time -f "%e %M" -o "$WORK/time" \
		"$REVPERF" report --state-dir "$WORK/state" --out "$WORK/site" -q
	read -r s kb <"$WORK/time"
	echo "run $i: $s s, max RSS $((kb / 1024)) MiB"
	echo "$s" >>"$WORK/all"
done
echo "site: $(du -sh "$WORK/site" | cut -f1), $(find "$WORK/site" -type f | wc -l) files," \
	"index.html $(du -h "$WORK/site/index.html" | cut -f1)"
sort -n "$WORK/all" | awk '{ v[NR] = $1 } END {
	printf "report: median %.2f s, range %.2f-%.2f s over %d runs\n",
		(NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR], NR }'
