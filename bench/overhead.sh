#!/bin/sh
# revperf's own cost per run against a plain shell loop and hyperfine, same command, same
# machine, same session. Usage: bench/overhead.sh REVPERF [N] [ROUNDS]  (defaults 1000, 3)
set -eu
REVPERF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
N=${2:-1000}
ROUNDS=${3:-3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/revperf-overhead.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
CMD=/bin/true
now_ns() { date +%s%N; }
half=$((N / 2))
r=0
: >times.tsv
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	t0=$(now_ns); i=0
	while [ $i -lt "$N" ]; do "$CMD"; i=$((i + 1)); done
	t1=$(now_ns)
	hyperfine -N --runs "$N" --warmup 0 --style none --export-json h.json "$CMD" >/dev/null 2>&1
	t2=$(now_ns)
	rm -rf .revperf
	"$REVPERF" compare --cmd-a "$CMD" --cmd-b "$CMD" --runs "$half..$half" --warmup 0 -q \
		--metrics wall -f json >r.json || true
	t3=$(now_ns)
	# The mean wall time each tool itself measured for the command.
	hmean=$(python3 -c "import json; print(json.load(open('h.json'))['results'][0]['mean'])")
	rmean=$(python3 -c "import json; m=json.load(open('r.json'))['benchmarks'][0]['metrics'][0]; print((m['baseline']['mean']+m['target']['mean'])/2)")
	printf '%s\t%s\t%s\t%s\t%s\n' $((t1 - t0)) $((t2 - t1)) $((t3 - t2)) "$hmean" "$rmean" >>times.tsv
done
python3 - times.tsv "$N" <<'PY'
import sys, statistics
rows = [[float(x) for x in l.split("\t")] for l in open(sys.argv[1]).read().splitlines()]
n = int(sys.argv[2])
def per_run(col): return [r[col] / n / 1e6 for r in rows]
sh, hf, rp = per_run(0), per_run(1), per_run(2)
print(f"command /bin/true, {n} runs per tool, {len(rows)} rounds (median of rounds, ms per run):")
print(f"  shell loop   {statistics.median(sh):.3f}   (rounds: {', '.join(f'{x:.3f}' for x in sh)})")
print(f"  hyperfine -N {statistics.median(hf):.3f}   (rounds: {', '.join(f'{x:.3f}' for x in hf)})")
print(f"  revperf      {statistics.median(rp):.3f}   (rounds: {', '.join(f'{x:.3f}' for x in rp)})")
print(f"  revperf - shell loop: {statistics.median(rp) - statistics.median(sh):+.3f} ms per run;"
      f" revperf / hyperfine: {statistics.median(rp) / statistics.median(hf):.2f}")
print(f"  wall of /bin/true as measured: hyperfine {statistics.median(r[3] for r in rows)*1e3:.3f} ms,"
      f" revperf {statistics.median(r[4] for r in rows)*1e3:.3f} ms")
PY
