# revperf history with a counted metric (ir) as the only metric: the series and the change
# points of ir come from the counted runs (profiles of kind vg-ir), not only from the
# timing runs' metrics. Before the fix, history reported "0 commits with values" for ir.
#
# Change points of a counted metric ignore shifts below the count tolerance (0.1%,
# docs/counted.md): the counts are exact, so a step of 0.01% (600 instructions of 6.1 M)
# is perfectly separable and E-divisive finds it (p = 0.005 before this rule), but the
# verdict calls it equal; a step of 1% is a change point.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

make_spin_repo repo
# 6 instructions per iteration, 6.13 M in all at 1,000,000
spin 1000000
git add . && git commit -qm base && git tag base
commit() { echo "$1" >>notes.txt && git add -A && git commit -qm "$1"; }
commit n1 && commit n2 && commit n3 && commit n4 && commit n5
spin 1000100 && commit tiny # +600 instructions: +0.0098%
commit t1 && commit t2 && commit t3 && commit t4
spin 1010100 && commit step # +60,000: +0.98%
commit s1 && commit s2 && commit s3 && commit s4

expect_exit 0 "$REVPERF" history base..HEAD -f json -q
python3 - out.txt <<'PY' || fail "history with ir: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["summary"]: x for x in d["commits"]}
ir = lambda s: [v for v in c[s]["verdicts"] if v["metric"] == "ir"][0]
assert ir("step")["verdict"] == "worse", ir("step")
assert ir("tiny")["verdict"] == "equal" and 1 < ir("tiny")["ratio"] < 1.0002, ir("tiny")
others = "n1 n2 n3 n4 n5 t1 t2 t3 t4 s1 s2 s3 s4".split()
assert all(ir(s)["verdict"] == "equal" and ir(s)["ratio"] == 1 for s in others), c
series = {(x["benchmark"], x["metric"]): x for x in d["series"]}
s = series[("spin", "ir")]
pts = s["points"]
assert len(pts) == 15, s
assert len({p["median"] for p in pts}) == 3, pts   # exact: three levels, no noise
cps = s["change_points"]
assert [p["sha"] for p in cps] == [c["step"]["sha"]], s
assert 0.009 < cps[0]["rel_change"] < 0.011, cps
# exact counts: the interval is of the merged segment before (its median resamples to the
# base or the tiny count) and the exact one after
lo, hi = cps[0]["rel_change_ci"]
assert 0.009 < lo <= cps[0]["rel_change"] <= hi < 0.011, cps
assert s["min_change"] == 0.001 and s["below_min_change"] == 1, s
PY
# The text says what was left out, and the 1% step with two decimals.
expect_exit 0 "$REVPERF" history base..HEAD -q
expect_grep '^  spin ir: at [0-9a-f]{12} \(step\): median [0-9.]+[kMG]? -> [0-9.]+[kMG]? \(\+0\.9[0-9]%, 99\.00% CI \+0\.9[0-9]% to \+0\.9[0-9]%\), p = ' out.txt
expect_grep '^  spin ir: 1 shift below the count tolerance 0\.1% not counted as change point$' out.txt
