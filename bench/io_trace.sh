#!/bin/sh
# bench/io_trace.sh BUILDDIR [N] [ROUNDS] [K_ROUNDS]
# The I/O tracer (collect/iotrace.h) against strace on one workload, same machine, same
# session: bench/workloads/io_writes.c (gcc -O2) makes N write calls (default 200000), half
# through stdio (fprintf + fflush: glibc's internal write), half direct write(), to a file.
# ROUNDS rounds (default 3) time, in this order:
#   untraced        the workload alone
#   strace-c        strace -f -c -e trace=write (counts only, no stacks)
#   iotrace         BUILDDIR/bench/iotrace_bench: every call with its stack and file
#   revperf-io      BUILDDIR/revperf profile --io -d DIR: the same trace, then every
#                   stack symbolized, the profile written and the report printed
# then K_ROUNDS times (default 1; about a minute each here):
#   iotrace-adj     iotrace again, right before and right after
#   strace-k        strace -f -k -e trace=write (every call with its stack)
# and prints each time, then the median per tool and the speed-up of iotrace over
# strace -k, against the iotrace runs adjacent to the strace -k runs: this VM's speed
# drifts by 2-3x within minutes (a long strace -k run alone slows what follows), so only
# neighbours compare fairly. Goal (issue 5): iotrace at least 20x faster than strace -k.
# Wall times with `date +%s%N` around each process; take the bench lock
# (/tmp/revperf-bench.lock) while this runs on a shared machine.
set -eu
BUILD=$(cd "$1" && pwd)
N=${2:-200000}
ROUNDS=${3:-3}
K_ROUNDS=${4:-1}
SRC=$(cd "$(dirname "$0")/.." && pwd)
BENCH="$BUILD/bench/iotrace_bench"
[ -x "$BENCH" ] || { echo "io_trace.sh: $BENCH not built" >&2; exit 2; }
command -v strace >/dev/null || { echo "io_trace.sh: needs strace" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/revperf-bench-io.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
gcc -O2 -g -o "$WORK/io_writes" "$SRC/bench/workloads/io_writes.c"
W="$WORK/io_writes"
OUT="$WORK/out.txt"
now_ns() { date +%s%N; }

# time_run NAME CMD...: runs CMD, appends "NAME seconds" to times.txt and prints it.
time_run() {
	name=$1
	shift
	t0=$(now_ns)
	"$@" >"$WORK/stdout" 2>"$WORK/stderr" || { echo "$name failed:" >&2; cat "$WORK/stderr" >&2; exit 1; }
	t1=$(now_ns)
	s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
	echo "$name $s" >>"$WORK/times.txt"
	echo "  $name: $s s"
}

: >"$WORK/times.txt"
# run_iotrace NAME: one iotrace run, checked: it must have seen every call.
run_iotrace() {
	time_run "$1" "$BENCH" -- "$W" "$OUT" "$N"
	# wall_s calls bytes entries tracer_cpu_s fast_unwinds libdw_unwinds (iotrace_bench)
	echo "    iotrace_bench: $(cat "$WORK/stdout")"
	calls=$(cut -d' ' -f2 "$WORK/stdout")
	[ "$calls" = "$N" ] || { echo "iotrace saw $calls calls, not $N" >&2; exit 1; }
}
r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	echo "round $r ($N calls)"
	time_run untraced "$W" "$OUT" "$N"
	time_run strace-c strace -f -c -e trace=write -o /dev/null "$W" "$OUT" "$N"
	run_iotrace iotrace
	rm -rf "$WORK/prof"
	time_run revperf-io "$BUILD/revperf" profile --io -d "$WORK/prof" -- "$W" "$OUT" "$N"
done
r=0
while [ $r -lt "$K_ROUNDS" ]; do
	r=$((r + 1))
	echo "strace -k round $r ($N calls)"
	run_iotrace iotrace-adj
	time_run strace-k strace -f -k -e trace=write -o /dev/null "$W" "$OUT" "$N"
	run_iotrace iotrace-adj
done
awk '{ t[$1] = t[$1] " " $2 } END { for (k in t) print k t[k] }' "$WORK/times.txt" |
	python3 -c '
import statistics, sys
med = {}
for line in sys.stdin:
    name, *xs = line.split()
    xs = [float(x) for x in xs]
    med[name] = statistics.median(xs)
    print(f"{name:11s} median {med[name]:8.3f} s  (min {min(xs):.3f}, max {max(xs):.3f}, {len(xs)} runs)")
k, adj, io, un = (med.get(x) for x in ("strace-k", "iotrace-adj", "iotrace", "untraced"))
if k and adj:
    print(f"iotrace is {k / adj:.1f}x faster than strace -k (against its adjacent runs)")
if io and un:
    print(f"iotrace takes {io / un:.1f}x the untraced time (rounds)")
'
