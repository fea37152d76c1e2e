#!/bin/sh
# A/A false verdicts: N comparisons of one build against itself on the example's benchmark.
# Usage: bench/aa_false_verdicts.sh REVPERF [N]   (default N = 100)
. "$(dirname "$0")/lib.sh"
N=${2:-100}
i=0
: >"$WORK/aa.tsv"
while [ $i -lt "$N" ]; do
	i=$((i + 1))
	"$REVPERF" compare baseline baseline --fresh -q -f json >"$WORK/aa.json" || true
	python3 - "$WORK/aa.json" >>"$WORK/aa.tsv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"][0]
m = [m for m in b["metrics"] if m["primary"]][0]
print(m["verdict"], b["runs"]["baseline"]["ok"], b["runs"]["target"]["ok"], m["ratio"], sep="\t")
PY
done
python3 - "$WORK/aa.tsv" "$N" <<'PY'
import sys, statistics
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
v = [r[0] for r in rows]
runs = [int(r[1]) for r in rows]
false = sum(x in ("worse", "better") for x in v)
print(f"A/A comparisons: {len(rows)}; false verdicts (worse or better): {false}")
print("verdicts: " + ", ".join(f"{k} {v.count(k)}" for k in ("equal", "undecided", "worse", "better")))
print(f"runs per side: median {statistics.median(runs):g}, min {min(runs)}, max {max(runs)}")
PY
