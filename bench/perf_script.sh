#!/bin/sh
# bench/perf_script.sh REVPERF [SAMPLES] [REPS]
# `revperf diff OLD NEW` on two `perf script` outputs of SAMPLES samples each (default
# 100000), made by repeating the real --call-graph dwarf samples of tests/data/perf
# (dwarf_old.perf, dwarf_new.perf: 7-8 frames a sample, two threads). Measures REPS runs
# (default 5) with /usr/bin/time: CPU seconds (user + sys: the machine is shared, wall time
# would measure the load) and max RSS of the whole process (reading both files, building
# and sorting both trees, differencing, printing); prints each run, the median and the max.
set -eu
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
N=${2:-100000}
REPS=${3:-5}
DATA=$(cd "$(dirname "$0")/../tests/data/perf" && pwd)
[ -x /usr/bin/time ] || { echo "perf_script.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/revperf-bench-perf.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

for side in old new; do
	awk -v n="$N" 'BEGIN { RS = ""; ORS = "\n\n" } { s[NR] = $0 }
		END { for (i = 0; i < n; i++) print s[i % NR + 1] }' \
		"$DATA/dwarf_$side.perf" >"$WORK/$side.perf"
done
ls -l "$WORK"/*.perf | awk '{printf "%s: %.1f MB\n", $NF, $5 / 1048576}'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
times=""
while [ $i -lt "$REPS" ]; do
	/usr/bin/time -f "%U %S %e %M" -o "$WORK/time" "$REVPERF" diff "$WORK/old.perf" \
		"$WORK/new.perf" >"$WORK/out" 2>"$WORK/err" || [ $? -eq 1 ]
	read -r user sys wall rss <<-END
	$(tail -n 1 "$WORK/time")
	END
	cpu=$(echo "$user $sys" | awk '{printf "%.2f", $1 + $2}')
	echo "run $i: ${cpu} s CPU (${wall} s wall), $((rss / 1024)) MB"
	times="$times$cpu $rss
"
	i=$((i + 1))
done
head -n 3 "$WORK/out"
printf '%s' "$times" | sort -n | awk -v n="$N" '{c[NR]=$1; if ($2 > r) r = $2} END {
	printf "median %.2f s CPU for 2 x %d samples (%.2f us a sample), max %.2f s, max RSS %.1f MB\n",
		c[int((NR+1)/2)], n, 1e6 * c[int((NR+1)/2)] / (2 * n), c[NR], r/1024 }'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
