#!/bin/sh
# Counted metrics (docs/counted.md): how many runs and seconds an ir verdict takes on a 1%
# and a 0.2% change, the A/A rate of `equal` on ir with 2 runs per side, and what revperf
# adds to a plain valgrind run of the same command with the same tool and options.
# Usage: bench/counted.sh REVPERF [AA_TRIALS] [ROUNDS]   (defaults 100, 5)
set -eu
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TRIALS=${2:-100}
ROUNDS=${3:-5}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/revperf-counted.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
cat >spin.c <<'C'
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}
int main(int argc, char **argv)
{
	work(strtoul(argv[1], 0, 10));
	printf("%lu\n", sink);
	return 0;
}
C
cc -O1 -g -o spin spin.c
now_ns() { date +%s%N; }

decide() { # LABEL N_B
	rm -rf .revperf
	t0=$(now_ns)
	"$REVPERF" compare --cmd-a './spin 2000000' --cmd-b "./spin $2" --metrics ir --primary ir \
		--runs 2..2 --warmup 0 -q -f json >d.json || true
	t1=$(now_ns)
	python3 - d.json "$1" $(( (t1 - t0) / 1000000 )) <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"][0]
m = [m for m in b["metrics"] if m["name"] == "ir"][0]
c = b["counted"]
print(f"  {sys.argv[2]:>5}: {m['verdict']:<9} ratio {m['ratio']:.5f} ({m['method']}), "
      f"{c['runs'][0]} + {c['runs'][1]} counted runs, {int(sys.argv[3]) / 1000:.2f} s in all "
      f"(2 + 2 timing runs included)")
PY
}
echo "decisions on ir (2,000,000 loop iterations at the baseline):"
decide "1%" 2020000
decide "0.2%" 2004000

echo "A/A on ir, $TRIALS comparisons with 2 counted runs per side:"
equal=0; other=0; i=0
while [ $i -lt "$TRIALS" ]; do
	i=$((i + 1))
	rm -rf .revperf
	"$REVPERF" compare --cmd-a './spin 2000000' --cmd-b './spin 2000000' --metrics ir \
		--primary ir --runs 2..2 --warmup 0 -q -f json >aa.json || true
	v=$(python3 -c "import json; b=json.load(open('aa.json'))['benchmarks'][0]; print([m for m in b['metrics'] if m['name']=='ir'][0]['verdict'])")
	if [ "$v" = equal ]; then equal=$((equal + 1)); else other=$((other + 1)); fi
done
echo "  equal in $equal of $TRIALS ($other other)"

# revperf's counted run against the same valgrind command run by hand, interleaved.
echo "one counted run: plain valgrind vs revperf's counted runs (per run, $ROUNDS rounds):"
: >cost.tsv
r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	t0=$(now_ns)
	./spin 2000000 >/dev/null
	t1=$(now_ns)
	mkdir -p vg && valgrind --tool=callgrind --trace-children=yes \
		--callgrind-out-file=vg/callgrind.out.%p ./spin 2000000 >/dev/null 2>&1
	t2=$(now_ns)
	rm -rf .revperf vg
	# 2 + 2 counted runs and 2 + 2 timing runs; the timing runs are timed apart below
	"$REVPERF" compare --cmd-a './spin 2000000' --cmd-b './spin 2000000' --metrics ir \
		--primary ir --runs 2..2 --warmup 0 -q -f json >c.json || true
	t3=$(now_ns)
	timing=$(python3 -c "import json; b=json.load(open('c.json'))['benchmarks'][0]; print(b['elapsed_s'])")
	printf '%s\t%s\t%s\t%s\n' $((t1 - t0)) $((t2 - t1)) $((t3 - t2)) "$timing" >>cost.tsv
done
python3 - cost.tsv <<'PY'
import sys, statistics
rows = [[float(x) for x in l.split("\t")] for l in open(sys.argv[1])]
native = [r[0] / 1e6 for r in rows]
vg = [r[1] / 1e6 for r in rows]
# revperf: the whole compare minus its timing phase, over its 4 counted runs
rp = [(r[2] / 1e6 - r[3] * 1e3) / 4 for r in rows]
print(f"  native run       {statistics.median(native):8.1f} ms")
print(f"  valgrind by hand {statistics.median(vg):8.1f} ms  ({statistics.median(vg) / statistics.median(native):.0f}x native)")
print(f"  revperf counted  {statistics.median(rp):8.1f} ms  (+{100 * (statistics.median(rp) / statistics.median(vg) - 1):.1f}% over valgrind by hand; includes revperf's start, store and report)")
PY
