#!/bin/sh
# The wall time revperf reports for /bin/true against hyperfine's, in many short interleaved
# rounds (the machine's noise moves both alike within a round).
# Usage: bench/wall_bias.sh ROUNDS REVPERF [REVPERF2 ...]
# Each round: hyperfine -N --runs 300, then `revperf compare --runs 150..150 --warmup 0
# --metrics wall` with each build in a fresh state directory; prints, per build, the median
# and quartiles of (revperf's mean wall - hyperfine's mean) over the rounds.
set -eu
ROUNDS=$1
shift
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
TOOLS=""
for t in "$@"; do TOOLS="$TOOLS $(abs "$t")"; done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/revperf-wallbias.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
: >rows.txt
r=0
while [ $r -lt "$ROUNDS" ]; do
	r=$((r + 1))
	hyperfine -N --runs 300 --warmup 0 --style none --export-json h.json /bin/true >/dev/null 2>&1
	line=$(python3 -c "import json; print(json.load(open('h.json'))['results'][0]['mean'] * 1e3)")
	for t in $TOOLS; do
		rm -rf .revperf
		"$t" compare --cmd-a /bin/true --cmd-b /bin/true --runs 150..150 --warmup 0 -q \
			--metrics wall -f json >r.json || true
		line="$line $(python3 -c "import json; m = json.load(open('r.json'))['benchmarks'][0]['metrics'][0]; print((m['baseline']['mean'] + m['target']['mean']) / 2 * 1e3)")"
	done
	echo "$line" >>rows.txt
done
python3 - rows.txt "$(cut -d' ' -f1 /proc/loadavg)" $TOOLS <<'PY'
import sys, statistics, os
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
print(f"{len(rows)} rounds, load average now {sys.argv[2]}; hyperfine's wall median"
      f" {statistics.median(r[0] for r in rows):.3f} ms")
for i, t in enumerate(sys.argv[3:], 1):
    d = [r[i] - r[0] for r in rows]
    q = statistics.quantiles(d, n=4)
    name = os.path.basename(os.path.dirname(t)) + "/revperf"
    print(f"  {name}: wall - hyperfine's median {statistics.median(d):+.3f} ms,"
          f" quartiles {q[0]:+.3f} {q[2]:+.3f}, above in {sum(x > 0 for x in d)} of {len(d)}")
PY
