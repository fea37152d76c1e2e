#!/bin/sh
# The noise controls side by side (docs/measurement.md, "Pinning and quiet"): N rounds, each
# running, for every configuration in turn, one A/A comparison (baseline against itself),
# one against the ~10% CPU regression and one against the neutral commit of the example
# history (--fresh), so that the machine's drift reaches every configuration alike.
# Usage: bench/noise_controls.sh REVPERF [N [CONFIG...]]   (default N = 10)
# A CONFIG is a string of compare options; the defaults are: none, "--pin auto",
# "--wait-quiet 25%,1s" and both.
. "$(dirname "$0")/lib.sh"
N=${2:-10}
shift
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- "" "--pin auto" "--wait-quiet 25%,1s" "--pin auto --wait-quiet 25%,1s"
: >"$WORK/rows.tsv"
load() { cut -d' ' -f1 /proc/loadavg; }
echo "$(load)" >"$WORK/load.txt"
i=0
while [ $i -lt "$N" ]; do
	i=$((i + 1))
	c=0
	for config in "$@"; do
		c=$((c + 1))
		for target in baseline cpu-regression neutral; do
			t0=$(now_ns)
			# shellcheck disable=SC2086
			"$REVPERF" compare baseline "$target" --fresh -q -f json $config \
				>"$WORK/c.json" || true
			t1=$(now_ns)
			python3 - "$WORK/c.json" "$c" "$target" $((t1 - t0)) >>"$WORK/rows.tsv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"][0]
w = [m for m in b["metrics"] if m["name"] == "wall"][0]
q = b.get("quiet") or {}
lo, hi = w["ci"] if w["ci"] and None not in w["ci"] else ("nan", "nan")
print(sys.argv[2], sys.argv[3], w["verdict"], b["runs"]["baseline"]["ok"],
      b["runs"]["target"]["ok"], w["ratio"], lo, hi, int(sys.argv[4]) / 1e9,
      q.get("pairs_waited", 0), q.get("still_busy", 0), sep="\t")
PY
		done
	done
	echo "$(load)" >>"$WORK/load.txt"
done
python3 - "$WORK/rows.tsv" "$WORK/load.txt" "$@" <<'PY'
import sys, statistics, math
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
loads = [float(x) for x in open(sys.argv[2]).read().split()]
configs = sys.argv[3:]
print(f"{len(rows) // (3 * len(configs))} rounds, load average {min(loads):.1f}-{max(loads):.1f};"
      " per configuration: verdicts, runs per side (median), interval half-width (median,"
      " min-max), seconds per comparison (median)")
for c, name in enumerate(configs, 1):
    print(f"  {name or '(none)'}")
    for target in ("baseline", "cpu-regression", "neutral"):
        r = [x for x in rows if x[0] == str(c) and x[1] == target]
        if not r:
            continue
        v = [x[2] for x in r]
        counts = ", ".join(f"{k} {v.count(k)}" for k in ("worse", "better", "equal", "undecided") if v.count(k))
        runs = statistics.median(min(int(x[3]), int(x[4])) for x in r)
        w = [(float(x[7]) / float(x[6]) - 1) * 50 for x in r if x[6] != "nan"]
        secs = statistics.median(float(x[8]) for x in r)
        waited = sum(int(x[9]) for x in r)
        busy = sum(int(x[10]) for x in r)
        label = "A/A" if target == "baseline" else target
        line = (f"    {label:<15} {counts:<30} runs {runs:>4g}  ±{statistics.median(w):4.1f}%"
                f" ({min(w):.1f}-{max(w):.1f})  {secs:5.1f} s")
        if waited:
            line += f"  quiet: {waited} pairs waited, {busy} still busy"
        print(line)
PY
