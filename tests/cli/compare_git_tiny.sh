# Git mode on a tiny repository: builds cached per (commit, command), A/A kept apart,
# reuse of stored runs, and the verdict of a real slowdown.
# The slowdown is a shell loop doing ten times the work, judged on CPU time: with both cores
# kept busy its wall time (31 against 93 ms, ratio 4.3) ended undecided in 6 + 6 runs (99%
# interval 0.40-46.8; exit 0 where 1 was expected) while its CPU time was worse, ratio 6.6
# (interval 5.9-7.4).
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo repo
cd repo
printf 'primary = cpu\n' >>revperf.ini
printf 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done\n' >work.sh
git commit -qam "ten times more work" && git tag slow

# primary_verdict: the verdict of the primary metric (cpu) in out.txt.
primary_verdict() {
	json_get out.txt "[m['verdict'] for m in d['benchmarks'][0]['metrics'] if m['primary']]"
}
expect_exit 1 "$REVPERF" compare base slow -q --seed 1 -f json
[ "$(primary_verdict)" = "['worse']" ] || fail "not worse"
expect_grep 'building [0-9a-f]{12} \(base\)' err.txt
[ -f .revperf/worktrees/$(git rev-parse base)/built.txt ] || fail "build did not run in the worktree"
ls .revperf/logs/build-*.log >/dev/null || fail "no build log"

# Second time: builds cached, runs reused (and no new build).
expect_exit 1 "$REVPERF" compare base slow -q -f json
expect_no_grep 'building' err.txt
reused=$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['reused']")
[ "$reused" -ge 3 ] || fail "stored runs not reused ($reused)"

# --fresh measures anew; another pair (here: the reversed one) never borrows these runs,
# which were interleaved with a different partner at a different time.
expect_exit 1 "$REVPERF" compare base slow -q -f json --fresh
[ "$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['reused']")" = 0 ] || fail "--fresh reused"
expect_exit 0 "$REVPERF" compare slow base -q -f json
[ "$(json_get out.txt "d['benchmarks'][0]['runs']['baseline']['reused']")" = 0 ] || fail "reversed pair reused"
[ "$(primary_verdict)" = "['better']" ] || fail "reversed not better"

# Revision expressions git accepts.
expect_exit 1 "$REVPERF" compare HEAD~1 HEAD -q -f json
[ "$(json_get out.txt "d['baseline']['sha']")" = "$(git rev-parse base)" ] || fail "HEAD~1"

# A/A: same build on both sides; runs of the two sides are not shared, never worse/better.
expect_exit 0 "$REVPERF" compare base base -q -f json --runs 4..4
python3 - out.txt <<'PY' || fail "A/A"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["same_build"] is True
b = d["benchmarks"][0]
assert b["runs"]["baseline"]["reused"] == 0 and b["runs"]["target"]["reused"] == 0, b["runs"]
[m] = [m for m in b["metrics"] if m["primary"]]
assert m["name"] == "cpu" and m["verdict"] in ("equal", "undecided"), m
assert m["ratio"] != 1.0 or m["baseline"]["sd"] == 0, m   # two distinct samples
PY
echo ok
