# In-process iterations (revperf-iteration SECONDS lines) with PeASS's steady-state rule.
. "$SRCDIR/tests/cli/lib/common.bash"

# Warm-up iterations are slow, then steady at 10 ms (A) or 12 ms (B).
cat >iter.sh <<'SH'
for t in 0.050 0.040 0.030; do echo "revperf-iteration $t"; done
for i in 1 2 3 4 5 6 7 8; do echo "revperf-iteration $1"; done
SH
expect_exit 1 "$REVPERF" compare --cmd-a 'sh iter.sh 0.0100' --cmd-b 'sh iter.sh 0.0120' \
	--metrics iteration --primary iteration --runs 3..3 -q -f json
python3 - out.txt <<'PY' || fail "iterations"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["benchmarks"][0]["metrics"][0]
assert m["name"] == "iteration" and m["verdict"] == "worse", m
assert abs(m["baseline"]["mean"] - 0.0100) < 1e-9, m   # warm-up iterations dropped
assert abs(m["ratio"] - 1.2) < 1e-6, m
PY
# No iteration lines: the metric is unmeasured, never zero.
expect_exit 0 "$REVPERF" compare --cmd-a true --cmd-b true --metrics wall,iteration --runs 3..3 -q -f json
[ "$(json_get out.txt "d['benchmarks'][0]['metrics'][1]['verdict']")" = unmeasured ] || fail "missing iterations"

# Iterations that never settle: still measured (last 5), and every such run is flagged.
printf 'for t in 0.01 0.02 0.01 0.02 0.01 0.02 0.01 0.02; do echo "revperf-iteration $t"; done\n' >noisy.sh
expect_exit 0 "$REVPERF" compare --cmd-a 'sh noisy.sh' --cmd-b 'sh noisy.sh' --metrics iteration \
	--primary iteration --runs 3..3 --warmup 0 -q
expect_grep 'warning: baseline run ok \(iterations never reached a steady state' out.txt
[ "$(grep -c 'never reached a steady state' out.txt)" = 6 ] || fail "not every run flagged"
echo ok
