#!/bin/sh
# A/A false verdicts: N comparisons of one build against itself on the example's benchmark.
# Usage: bench/aa_false_verdicts.sh REVPERF [N [COMPARE-OPTION...]]   (default N = 100)
# Options after N go to every `revperf compare`, e.g. --pin auto or --wait-quiet '25%,2s'.
. "$(dirname "$0")/lib.sh"
N=${2:-100}
shift
[ $# -gt 0 ] && shift
i=0
: >"$WORK/aa.tsv"
while [ $i -lt "$N" ]; do
	i=$((i + 1))
	"$REVPERF" compare baseline baseline --fresh -q -f json "$@" >"$WORK/aa.json" || true
	python3 - "$WORK/aa.json" >>"$WORK/aa.tsv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"][0]
m = [m for m in b["metrics"] if m["primary"]][0]
print(m["verdict"], b["runs"]["baseline"]["ok"], b["runs"]["target"]["ok"], m["ratio"],
      m["ci"][0], m["ci"][1], sep="\t")
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
# The interval's half-width in percent of the ratio (hi / lo is 1 + twice that, about).
w = [(float(r[5]) / float(r[4]) - 1) * 50 for r in rows if r[4] not in ("None", "nan")]
if w:
    print(f"interval half-width: median ±{statistics.median(w):.1f}% (min ±{min(w):.1f}%, max ±{max(w):.1f}%)")
PY
