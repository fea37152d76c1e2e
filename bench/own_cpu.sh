#!/bin/sh
# revperf's own CPU time per run: the main process alone (`perf stat -i`: the spawner, the
# benchmark's processes and their start-up are not counted), which stores each run while
# the next one runs. Builds interleaved, in an order rotated every round.
# Usage: bench/own_cpu.sh ROUNDS REVPERF [REVPERF2 ...]
# Each round runs, with every build, `revperf compare --cmd-a /bin/true --cmd-b /bin/true
# --runs N..N --warmup 0 --metrics wall -q --fresh` in a fresh state directory for N = 1000
# and 100, and prints per build the median (min-max) over the rounds of its task-clock / 2000
# and of one more run, start-up excluded: (T(1000 + 1000) - T(100 + 100)) / 1800.
# Not counted either: the thread that copies SQLite's WAL into the database
# (src/store/store_checkpoint.c, since 77d8148), a task that `perf stat -i` does not
# follow; builds from before and after that commit are not comparable here.
set -eu
ROUNDS=$1
shift
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
TOOLS=$(abs "$1")
shift
for t in "$@"; do TOOLS="$TOOLS $(abs "$t")"; done
NTOOLS=$(($# + 1))
WORK=$(mktemp -d "${TMPDIR:-/tmp}/revperf-own-cpu.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
: >times.txt
echo "load $(cut -d' ' -f1 /proc/loadavg)" >load.txt
r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	order=$TOOLS
	k=0
	while [ "$NTOOLS" -gt 1 ] && [ $k -lt $((r % NTOOLS)) ]; do
		order="$(echo "$order" | cut -d' ' -f2-) $(echo "$order" | cut -d' ' -f1)"
		k=$((k + 1))
	done
	for tool in $order; do
		for n in 1000 100; do
			rm -rf .revperf
			perf stat -i -e task-clock -x, -o stat.txt "$tool" compare --cmd-a /bin/true \
				--cmd-b /bin/true --runs "$n..$n" --warmup 0 --metrics wall -q --fresh \
				>/dev/null
			echo "$tool $n $(grep task-clock stat.txt | cut -d, -f1)" >>times.txt
		done
	done
	echo "load $(cut -d' ' -f1 /proc/loadavg)" >>load.txt
done
python3 - times.txt load.txt <<'PY'
import collections, os, statistics, sys
ms = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    tool, n, t = line.split()
    ms[tool][int(n)].append(float(t))
loads = [float(l.split()[1]) for l in open(sys.argv[2])]
print(f"revperf's own CPU (main process, task-clock), compare of /bin/true, "
      f"{len(next(iter(ms.values()))[1000])} rounds, load average {min(loads):.1f}-{max(loads):.1f}")
print("  ms per run, median of rounds (min-max):  total / 2000          one more run")
for tool, by_n in ms.items():
    tot = [t / 2000 for t in by_n[1000]]
    one = [(a - b) / 1800 for a, b in zip(by_n[1000], by_n[100])]
    name = os.path.basename(os.path.dirname(tool)) + "/revperf"
    print(f"  {name:<22} {statistics.median(tot):.4f} ({min(tot):.4f}-{max(tot):.4f})"
          f"   {statistics.median(one):.4f} ({min(one):.4f}-{max(one):.4f})")
PY
