#!/bin/bash
# bench/cct_runtime.sh REVPERF [ITERATIONS] [ROUNDS]
# Cost per instrumented call (entry + exit hooks) of librevperf_cct.so against the no-op
# runtime, the uninstrumented program and `uftrace record`, on the same binary in the same
# session. The workload (bench/workloads/calls.c, gcc -O2) makes 4.625 calls per iteration
# (default 5,000,000 iterations: 23,125,001 calls) with a small calling context tree.
# Variants, run interleaved (the order rotates every round), ROUNDS times (default 5):
#   plain    the workload built without -finstrument-functions
#   noop     built with -finstrument-functions, LD_PRELOAD=librevperf_cct_noop.so
#   cct      the same binary, LD_PRELOAD=librevperf_cct.so (the profile is checked)
#   none     the same, REVPERF_CCT_CLOCK=none: calls only, no clock read (the profile is
#            checked: every call, clock none, every time 0)
#   noclock  diagnostic only: runtime/cct/revperf_cct.c built by this script with the TSC
#            read replaced by 0 (its times are meaningless): what the clock costs
#   uftrace  the same binary, `uftrace record -d DIR` (the trace is written to TMPDIR)
# Each variant also runs with 0 iterations in the same round; ns per call is
# (time(ITERATIONS) - time(0)) / (calls(ITERATIONS) - calls(0)), which removes the fixed
# costs (loading, uftrace's symbol files, writing the profile). Wall time is measured with
# date +%s%N, CPU time (user + sys of the whole process tree) with /usr/bin/time.
# Differences against plain and noop are taken within a round, then summarised as median
# [min - max] over the rounds. Holds /tmp/revperf-bench.lock while measuring.
set -eu
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
N=${2:-5000000}
ROUNDS=${3:-5}
SRC=$(cd "$(dirname "$0")/.." && pwd)
RT=$(dirname "$REVPERF")/runtime
CC=${CC:-gcc}
LOCK=/tmp/revperf-bench.lock
for f in "$RT/librevperf_cct.so" "$RT/librevperf_cct_noop.so"; do
	[ -f "$f" ] || { echo "cct_runtime.sh: no $f (build first)" >&2; exit 2; }
done
command -v uftrace >/dev/null || { echo "cct_runtime.sh: needs uftrace (apt-get install uftrace)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "cct_runtime.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/revperf-bench-rt.XXXXXX")
have_lock=0
cleanup() {
	[ "$have_lock" = 1 ] && rm -f "$LOCK"
	rm -rf "$WORK"
}
trap cleanup EXIT
cd "$WORK"

$CC -O2 "$SRC/bench/workloads/calls.c" -o plain
$CC -O2 -finstrument-functions "$SRC/bench/workloads/calls.c" -o instr
$CC -O2 "$SRC/bench/workloads/clock_cost.c" -o clock_cost
sed 's/return __rdtsc();/return 0;/' "$SRC/runtime/cct/revperf_cct.c" >noclock.c
grep -q 'return 0;' noclock.c || { echo "cct_runtime.sh: cannot derive the noclock runtime" >&2; exit 2; }
$CC -O2 -fPIC -shared -fvisibility=hidden -fno-omit-frame-pointer -I"$SRC/runtime/cct" \
	noclock.c -o libnoclock.so -ldl -lpthread

# run VARIANT ITER: one timed run; appends "variant iter wall_ns cpu_s calls" to times.txt.
run() {
	local v=$1 it=$2 t0 t1
	rm -rf out ut && mkdir out
	case $v in
	plain) set -- ./plain "$it" ;;
	noop) set -- env LD_PRELOAD="$RT/librevperf_cct_noop.so" ./instr "$it" ;;
	cct) set -- env REVPERF_CCT_OUT="$WORK/out" LD_PRELOAD="$RT/librevperf_cct.so" ./instr "$it" ;;
	none) set -- env REVPERF_CCT_CLOCK=none REVPERF_CCT_OUT="$WORK/out" \
		LD_PRELOAD="$RT/librevperf_cct.so" ./instr "$it" ;;
	noclock) set -- env REVPERF_CCT_OUT="$WORK/out" LD_PRELOAD="$WORK/libnoclock.so" ./instr "$it" ;;
	uftrace) set -- uftrace record -d "$WORK/ut" ./instr "$it" ;;
	esac
	t0=$(date +%s%N)
	/usr/bin/time -f '%U %S' -o cpu.txt "$@" >calls.txt
	t1=$(date +%s%N)
	local calls cpu
	calls=$(cat calls.txt)
	cpu=$(awk '{print $1 + $2}' cpu.txt)
	if [ "$v" = cct ] || [ "$v" = none ]; then
		# Every call must be in the profile: the sum of the node call counts.
		local got
		got=$(awk '$1 == "n" {s += $6} END {print s + 0}' out/*.cct)
		[ "$got" = "$calls" ] || { echo "cct_runtime.sh: $v profile has $got calls, expected $calls" >&2; exit 1; }
	fi
	if [ "$v" = none ]; then
		local clock times
		clock=$(awk '$1 == "clock" {print $2}' out/*.cct)
		times=$(awk '$1 == "n" && ($7 != 0 || $8 != 0)' out/*.cct | wc -l)
		[ "$clock" = none ] && [ "$times" = 0 ] ||
			{ echo "cct_runtime.sh: none: clock '$clock', $times nodes with times" >&2; exit 1; }
	fi
	echo "$v $it $((t1 - t0)) $cpu $calls" >>times.txt
}

while [ -e "$LOCK" ]; do
	echo "cct_runtime.sh: $LOCK held by $(cat "$LOCK" 2>/dev/null); waiting" >&2
	sleep 20
done
echo "bench/cct_runtime.sh" >"$LOCK"
have_lock=1

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
./clock_cost 5000000
variants=(plain noop cct none noclock uftrace)
: >times.txt
for r in $(seq 1 "$ROUNDS"); do
	# Rotate the order so that no variant always runs first or after the heaviest one.
	k=$(((r - 1) % ${#variants[@]}))
	for v in "${variants[@]:k}" "${variants[@]:0:k}"; do
		run "$v" 0
		run "$v" "$N"
	done
	echo "round $r" >>times.txt
done
rm -f "$LOCK"
have_lock=0

python3 - times.txt "$N" "$(uftrace --version | head -1)" <<'PY'
import statistics, sys
path, n, uver = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rounds, cur = [], {}
for line in open(path):
    f = line.split()
    if f[0] == "round":
        rounds.append(cur)
        cur = {}
        continue
    v, it, wall, cpu, calls = f[0], int(f[1]), int(f[2]), float(f[3]), int(f[4])
    cur.setdefault(v, {})[it] = (wall, cpu, calls)
names = ["plain", "noop", "cct", "none", "noclock", "uftrace"]
def per_call(r, v, k):
    big, small = r[v][n], r[v][0]
    scale = 1.0 if k == 0 else 1e9
    return (big[k] - small[k]) * scale / (big[2] - small[2])
calls = rounds[0]["cct"][n][2] - rounds[0]["cct"][0][2]
def fmt(xs):
    return f"{statistics.median(xs):7.1f} [{min(xs):6.1f} - {max(xs):6.1f}]"
print(f"{calls} calls per run ({n} iterations), {len(rounds)} rounds; {uver}")
print("ns per call, median [min - max] over rounds; time(N) - time(0) per call")
for k, label in ((0, "wall"), (1, "cpu (user+sys)")):
    print(f"-- {label}")
    print(f"  {'variant':8} {'total':>24} {'above plain':>24} {'above noop':>24}")
    for v in names:
        tot = [per_call(r, v, k) for r in rounds]
        ap = [per_call(r, v, k) - per_call(r, "plain", k) for r in rounds]
        an = [per_call(r, v, k) - per_call(r, "noop", k) for r in rounds]
        print(f"  {v:8} {fmt(tot):>24} {fmt(ap):>24} {fmt(an):>24}")
    for v in ("cct", "none"):
        for base in ("plain", "noop"):
            # A round whose difference is not above the noise (0.1 ns) gives no ratio.
            ratio = [(per_call(r, "uftrace", k) - per_call(r, base, k)) /
                     (per_call(r, v, k) - per_call(r, base, k)) for r in rounds
                     if per_call(r, v, k) - per_call(r, base, k) > 0.1]
            left = len(rounds) - len(ratio)
            note = f" ({left} rounds left out: {v} not above {base})" if left else ""
            if not ratio:
                print(f"  uftrace / {v}, above {base}: n/a{note}")
                continue
            print(f"  uftrace / {v}, above {base}: {statistics.median(ratio):.2f}"
                  f" [{min(ratio):.2f} - {max(ratio):.2f}]{note}")
PY
