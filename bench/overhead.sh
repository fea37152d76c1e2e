#!/bin/sh
# revperf's own cost per run against a plain shell loop and hyperfine -N, same command, same
# machine, same session, interleaved: every round runs each tool once, in a rotated order.
# Usage: bench/overhead.sh REVPERF [N] [ROUNDS] [REVPERF2 ...]   (defaults 1000, 3)
# Further revperf binaries (another build) are measured side by side in the same rounds.
# Each revperf round is `revperf compare --cmd-a CMD --cmd-b CMD --runs N/2..N/2 --warmup 0
# --metrics wall` in a fresh state directory: every run stored, the looks, the start-up.
# With N > 100, each tool also runs N/10 times per round, so that the cost of one more run
# (start-up excluded) is (time(N) - time(N/10)) / (N - N/10).
set -eu
N=${2:-1000}
ROUNDS=${3:-3}
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
TOOLS="$(abs "$1")"
shift
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
for extra in "$@"; do TOOLS="$TOOLS $(abs "$extra")"; done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/revperf-overhead.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
CMD=/bin/true
SMALL=0
[ "$N" -gt 100 ] && SMALL=$((N / 10))
now_ns() { date +%s%N; }

# run TOOL COUNT: runs COUNT times, prints "elapsed_ns mean_wall_s" (wall as the tool saw it).
run() {
	t0=$(now_ns)
	case $1 in
	shell)
		i=0
		while [ $i -lt "$2" ]; do "$CMD"; i=$((i + 1)); done
		t1=$(now_ns)
		echo "$((t1 - t0)) nan"
		;;
	hyperfine)
		hyperfine -N --runs "$2" --warmup 0 --style none --export-json h.json "$CMD" \
			>/dev/null 2>&1
		t1=$(now_ns)
		echo "$((t1 - t0)) $(python3 -c "import json; print(json.load(open('h.json'))['results'][0]['mean'])")"
		;;
	*)
		rm -rf .revperf
		"$1" compare --cmd-a "$CMD" --cmd-b "$CMD" --runs "$(($2 / 2))..$(($2 / 2))" \
			--warmup 0 -q --metrics wall -f json >r.json || true
		t1=$(now_ns)
		echo "$((t1 - t0)) $(python3 -c "import json; m=json.load(open('r.json'))['benchmarks'][0]['metrics'][0]; print((m['baseline']['mean']+m['target']['mean'])/2)")"
		;;
	esac
}

load() { cut -d' ' -f1 /proc/loadavg; }
echo "load $(load)" >load.txt
: >times.tsv
r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	order="shell hyperfine $TOOLS"
	# Rotate the order by the round, so that no tool always follows another.
	k=0
	while [ $k -lt $((r % 3)) ]; do
		order="$(echo "$order" | cut -d' ' -f2-) $(echo "$order" | cut -d' ' -f1)"
		k=$((k + 1))
	done
	for tool in $order; do
		big=$(run "$tool" "$N")
		small="0 nan"
		[ "$SMALL" -gt 0 ] && small=$(run "$tool" "$SMALL")
		printf '%s\t%s\t%s %s\n' "$r" "$tool" "$big" "$small" >>times.tsv
	done
	echo "load $(load)" >>load.txt
done
python3 - times.tsv "$N" "$SMALL" load.txt <<'PY'
import sys, statistics, math, os
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
n, small = int(sys.argv[2]), int(sys.argv[3])
loads = [float(l.split()[1]) for l in open(sys.argv[4])]
tools, per = [], {}
for rnd, tool, vals in rows:
    big_ns, big_wall, small_ns, small_wall = vals.split()
    if tool not in per:
        tools.append(tool)
        per[tool] = []
    per[tool].append((int(rnd), int(big_ns) / n / 1e6,
                      (int(big_ns) - int(small_ns)) / (n - small) / 1e6 if small else math.nan,
                      float(big_wall) * 1e3))
def name(t):
    return t if t in ("shell", "hyperfine") else os.path.basename(os.path.dirname(t)) + "/revperf"
def med(xs):
    xs = [x for x in xs if not math.isnan(x)]
    return statistics.median(xs) if xs else math.nan
def span(xs):
    return f"{min(xs):.3f}-{max(xs):.3f}"
hf = {r: (tot, marg, wall) for r, tot, marg, wall in per["hyperfine"]}
print(f"command {os.path.basename('/bin/true')}, {n} runs per tool and round"
      f"{f' (and {small} for the cost of one more run)' if small else ''}, {len(per['hyperfine'])} rounds,"
      f" load average {min(loads):.1f}-{max(loads):.1f}")
print("  ms per run, median of rounds (min-max):  total / N          one more run       wall as measured")
for t in tools:
    tot = [x[1] for x in per[t]]
    marg = [x[2] for x in per[t]]
    wall = [x[3] for x in per[t]]
    line = f"  {name(t):<22} {med(tot):7.3f} ({span(tot)})"
    line += f"   {med(marg):7.3f} ({span(marg)})" if small else ""
    line += f"   {med(wall):.3f} ({span(wall)})" if not math.isnan(med(wall)) else ""
    print(line)
for t in tools:
    if t in ("shell", "hyperfine"):
        continue
    # Per round, against hyperfine in the same round: the ratios and the wall difference.
    ratio = [x[1] / hf[x[0]][0] for x in per[t]]
    mratio = [x[2] / hf[x[0]][1] for x in per[t]] if small else []
    dwall = [x[3] - hf[x[0]][2] for x in per[t]]
    print(f"  {name(t)} / hyperfine -N per round: total {med(ratio):.2f} ({span(ratio)})"
          + (f", one more run {med(mratio):.2f} ({span(mratio)})" if small else "")
          + f"; wall - hyperfine's {med(dwall):+.3f} ms ({min(dwall):+.3f} to {max(dwall):+.3f})")
PY
