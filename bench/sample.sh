#!/bin/bash
# bench/sample.sh REVPERF [ROUNDS] [COMPARISONS] [BEFORE]
# The sampling profiler (docs/sampling.md) against `perf record`, in one session. BEFORE,
# another build of revperf (the base of a change), adds its two variants to part 1
# (before-fp, before-dwarf), interleaved with the others. SAMPLE_PARTS (default 123) picks
# the parts to run. To hold other work off, run the whole script under `chrt -f 50`.
#
# 1. Overhead. Two workloads built with gcc -O2 -g -fno-omit-frame-pointer (so that both
#    call graphs have frame pointers to follow): cpu-bound = bench/workloads/sample_versions.c
#    (loops in eight functions, 120 units) and call-heavy = bench/workloads/calls.c (short
#    calls, 150,000,000 iterations: 694 million calls). Variants, interleaved (the order
#    rotates every round), ROUNDS times (default 3), at 1 kHz and at 10 kHz:
#      plain          the program alone
#      revperf-fp     revperf profile --sample -F HZ --call-graph fp
#      perf-g         perf record -e cpu-clock:u -F HZ -g
#      revperf-dwarf  revperf profile --sample -F HZ --call-graph dwarf (8 KiB of stack)
#      perf-dwarf     perf record -e cpu-clock:u -F HZ --call-graph dwarf (8 KiB of stack)
#      before-fp, before-dwarf  as revperf-fp and revperf-dwarf with BEFORE (when given)
#    Each program runs under bench/workloads/time_run.c inside the profiler, which gives
#    its own wall and CPU time (user + sys, in microseconds: /usr/bin/time's 10 ms steps
#    were 1.5% of a run); the overhead is that time against plain's in the same
#    round, median [min - max] over the rounds. Also: samples taken and lost (revperf: its
#    report; perf: `perf report --stdio`'s "Total Lost Samples"), and the time after the
#    program ended until the profile was there (revperf: the command's wall minus the
#    run's, unwinding and naming included; perf: `perf report --stdio >/dev/null`, the
#    nearest thing perf does).
# 2. Naming 100k samples: the cpu-bound workload at 10 kHz for about 10 s of CPU time, in
#    both call graphs; the time revperf takes after the run (raw file -> named profile),
#    against `perf report --stdio` on perf's recording of the same run length.
# 3. Attribution on a two-version -O2 program without frame pointers: sample_versions.c,
#    VERSION 2 doubles f5's work (12.5% -> 22% of the samples). COMPARISONS (default 10)
#    fresh `revperf compare --cmd-a ./v1 --cmd-b ./v2 --profile sample` with 5 + 5 timing
#    runs and 3 + 3 sampled runs: how often f5 is the first weight difference.
# The machine's load average is printed before and after each part.
set -eu
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROUNDS=${2:-3}
COMPARISONS=${3:-10}
BEFORE=
[ -n "${4:-}" ] && BEFORE=$(cd "$(dirname "$4")" && pwd)/$(basename "$4")
PARTS=${SAMPLE_PARTS:-123}
SRC=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-gcc}
command -v perf >/dev/null || { echo "sample.sh: needs perf (apt-get install linux-perf)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/revperf-bench-sample.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
load() { echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"; }
now_ns() { date +%s%N; }

$CC -O2 -o time_run "$SRC/bench/workloads/time_run.c"
$CC -O2 -g -fno-omit-frame-pointer -o cpu "$SRC/bench/workloads/sample_versions.c"
$CC -O2 -g -fno-omit-frame-pointer -o calls "$SRC/bench/workloads/calls.c"
$CC -O2 -g -o v1 "$SRC/bench/workloads/sample_versions.c"
$CC -O2 -g -DVERSION=2 -o v2 "$SRC/bench/workloads/sample_versions.c"
declare -A ARGS=([cpu]=120 [calls]=150000000)

# run VARIANT WORKLOAD HZ: one run; prints "wall cpu samples lost post_s".
run() {
	local v=$1 w=$2 hz=$3 t0 t1 post=0 samples=- lost=-
	local prog=(./time_run t.txt "./$w" "${ARGS[$w]}") bin=$REVPERF
	case $v in
	plain) "${prog[@]}" >/dev/null ;;
	revperf-fp | revperf-dwarf | before-fp | before-dwarf)
		[ "${v%-*}" = before ] && bin=$BEFORE
		t0=$(now_ns)
		"$bin" profile --sample -F "$hz" --call-graph "${v#*-}" -f json -- "${prog[@]}" \
			>r.json 2>/dev/null
		t1=$(now_ns)
		read -r samples lost post < <(python3 -c 'import json,sys
d = json.load(open("r.json")); wall = (int(sys.argv[2]) - int(sys.argv[1])) / 1e9
print(d["samples"], d["lost"], "%.3f" % (wall - d["wall_ns"] / 1e9))' "$t0" "$t1")
		;;
	perf-g | perf-dwarf)
		local cg=(-g)
		[ "$v" = perf-dwarf ] && cg=(--call-graph dwarf)
		perf record -q -e cpu-clock:u -F "$hz" "${cg[@]}" -o p.data -- "${prog[@]}" >/dev/null 2>&1
		t0=$(now_ns)
		perf report -i p.data --stdio >rep.txt 2>/dev/null
		t1=$(now_ns)
		post=$(echo "($t1 - $t0) / 1000000000" | bc -l | xargs printf '%.3f')
		samples=$(perf report -i p.data --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
		lost=$(awk '/Total Lost Samples:/ {print $5; exit}' rep.txt)
		rm -f p.data
		;;
	esac
	read -r wall user sys <t.txt
	echo "$wall $(echo "$user + $sys" | bc -l) $samples ${lost:-0} $post"
}

if [[ $PARTS == *1* ]]; then
echo "== 1. overhead ($ROUNDS rounds)"
load
VARIANTS=(plain revperf-fp perf-g revperf-dwarf perf-dwarf)
[ -n "$BEFORE" ] && VARIANTS+=(before-fp before-dwarf)
for w in cpu calls; do
	for hz in 1000 10000; do
		: >"res-$w-$hz.txt"
		for ((r = 0; r < ROUNDS; r++)); do
			for ((i = 0; i < ${#VARIANTS[@]}; i++)); do
				v=${VARIANTS[$(((i + r) % ${#VARIANTS[@]}))]}
				echo "$r $v $(run "$v" "$w" "$hz")" >>"res-$w-$hz.txt"
			done
		done
	done
done
python3 - "$ROUNDS" <<'PY'
import statistics, sys
rounds = int(sys.argv[1])
def fmt(xs, pct=True):
    xs = sorted(xs)
    f = "%+.1f%%" if pct else "%.3f"
    return (f % statistics.median(xs)) + " [" + (f % xs[0]) + ", " + (f % xs[-1]) + "]"
print("workload  Hz     variant        program CPU vs plain       program wall vs plain      samples  lost  after the run (s)")
for w in ("cpu", "calls"):
    for hz in (1000, 10000):
        rows = [l.split() for l in open("res-%s-%d.txt" % (w, hz))]
        by = {}
        for r, v, wall, cpu, samples, lost, post in rows:
            by.setdefault(v, {})[int(r)] = (float(wall), float(cpu), samples, lost, float(post))
        base = by["plain"]
        print("%-9s %-6d %-14s %-26s %-26s %s" % (w, hz, "plain", "(%.3f s CPU)" % statistics.median(b[1] for b in base.values()),
              "(%.3f s wall)" % statistics.median(b[0] for b in base.values()), ""))
        for v in ("revperf-fp", "before-fp", "perf-g", "revperf-dwarf", "before-dwarf", "perf-dwarf"):
            if v not in by:
                continue
            d = by[v]
            cpu = [100 * (d[r][1] / base[r][1] - 1) for r in d]
            wall = [100 * (d[r][0] / base[r][0] - 1) for r in d]
            samples = "/".join(sorted({d[r][2] for r in d}, key=lambda s: (len(s), s)))[:20]
            lost = "/".join(d[r][3] for r in sorted(d))
            post = fmt([d[r][4] for r in d], pct=False)
            print("%-9s %-6d %-14s %-26s %-26s %-8s %-5s %s" % (w, hz, v, fmt(cpu), fmt(wall),
                  str(int(statistics.median(int(d[r][2]) for r in d))), lost, post))
PY
load
fi

if [[ $PARTS == *2* ]]; then
echo "== 2. naming 100k samples (10 kHz, about 10 s of CPU time)"
load
ARGS[cpu]=1850
for cg in fp dwarf; do
	out=$(run "revperf-$cg" cpu 10000)
	read -r wall cpu samples lost post <<<"$out"
	echo "revperf --call-graph $cg: $samples samples (lost $lost) in a run of ${wall} s; after the run: $post s"
	out=$(run "perf-$([ $cg = fp ] && echo g || echo dwarf)" cpu 10000)
	read -r wall cpu samples lost post <<<"$out"
	echo "perf record ($cg):      $samples samples (lost $lost) in a run of ${wall} s; perf report --stdio: $post s"
done
load
fi

if [[ $PARTS == *3* ]]; then
echo "== 3. attribution: v1 against v2 (f5 twice the work), -O2 without frame pointers, $COMPARISONS comparisons"
load
first=0
for ((c = 1; c <= COMPARISONS; c++)); do
	code=0
	"$REVPERF" compare -q --fresh --cmd-a "./v1 40" --cmd-b "./v2 40" --profile sample \
		--profile-runs 3 --runs 5..5 --warmup 0 --primary cpu --tolerance 5% -f json >cmp.json 2>cmp.err || code=$?
	line=$(python3 -c 'import json,sys
d = json.load(open("cmp.json"))["benchmarks"][0]; a = d["attribution"]
cpu = [m for m in d["metrics"] if m["name"] == "cpu"][0]
top = a["weight_differences"][0] if not a.get("error") and a["weight_differences"] else None
print(cpu["verdict"], "%.3f" % cpu["ratio"], ("/".join(top["path"][-3:]) if top else a.get("error")),
      "%+.2f" % (top["new"]["pweight"] - top["old"]["pweight"]) if top else "-",
      a.get("call_graph", {}).get("target", "-"))' 2>/dev/null || echo "unreadable (exit $code)")
	case $line in *stage_b/f5/work*) first=$((first + 1)) ;; esac
	echo "comparison $c: exit $code, cpu verdict/ratio, first weight difference, change (points), call graph: $line"
done
echo "f5 first in $first of $COMPARISONS comparisons"
load
fi
