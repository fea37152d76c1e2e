#!/bin/sh
# Sensitivity: N independent comparisons of baseline against the ~10% CPU
# regression and against the neutral commit of the example history (--fresh: no reuse).
# Usage: bench/sensitivity.sh REVPERF [N [COMPARE-OPTION...]]   (default N = 10)
# Options after N go to every `revperf compare`, e.g. --pin auto or --wait-quiet '25%,2s'.
. "$(dirname "$0")/lib.sh"
N=${2:-10}
shift
[ $# -gt 0 ] && shift
for target in cpu-regression neutral; do
	: >"$WORK/$target.tsv"
	i=0
	while [ $i -lt "$N" ]; do
		i=$((i + 1))
		"$REVPERF" compare baseline "$target" --fresh -q \
			-f json "$@" >"$WORK/s.json" || true
		python3 - "$WORK/s.json" >>"$WORK/$target.tsv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"][0]
m = {m["name"]: m for m in b["metrics"]}
w, c = m["wall"], m["cpu"]
print(w["verdict"], b["runs"]["baseline"]["ok"], b["runs"]["target"]["ok"],
      f'{w["ratio"]:.4f}', f'{w["ci"][0]:.4f}', f'{w["ci"][1]:.4f}', c["verdict"], f'{c["ratio"]:.4f}', sep="\t")
PY
	done
	python3 - "$WORK/$target.tsv" "$target" <<'PY'
import sys, statistics
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
v = [r[0] for r in rows]
print(f"baseline vs {sys.argv[2]}: {len(rows)} comparisons; wall verdicts: " +
      ", ".join(f"{k} {v.count(k)}" for k in ("worse", "undecided", "equal", "better")))
print(f"  runs per side: median {statistics.median(int(r[1]) for r in rows):g}"
      f" (min {min(int(r[1]) for r in rows)}, max {max(int(r[1]) for r in rows)})")
print("  wall ratio [CI] per comparison: " + "; ".join(f"{r[3]} [{r[4]}, {r[5]}]" for r in rows))
w = [(float(r[5]) / float(r[4]) - 1) * 50 for r in rows]
print(f"  interval half-width: median ±{statistics.median(w):.1f}% (min ±{min(w):.1f}%, max ±{max(w):.1f}%)")
c = [r[6] for r in rows]
print("  cpu verdicts: " + ", ".join(f"{k} {c.count(k)}" for k in ("worse", "undecided", "equal", "better")) +
      f"; median cpu ratio {statistics.median(float(r[7]) for r in rows):.4f}")
PY
done
