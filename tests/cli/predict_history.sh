# End to end on a generated history of the example project (tests/cli/lib/predict_history.sh:
# 38 commits; 18 change a hot function's work on purpose, to 2.3-15 times their parent's CPU
# time or 0.07-0.44 of it, cpu-regression by about 10%, the rest are neutral): dynamic data
# at every commit (real callgrind runs), every commit compared with its parent (real
# measurements: the verdicts label the tuples, undecided ones are left out), then `revperf
# train --evaluate`: the common predictor must predict at least 90% of the hits under
# 10-fold cross-validation. The dismiss rate is printed.
#
# The labels must not depend on the machine's load. With both cores kept busy, CPU time
# varies by 8-13% from run to run (log sd of a pair's ratio), so that at a 10% tolerance,
# with the effects of 12% to 6x this history had before, a clean-clone `make test` failed
# the cross-validation, and a run with both cores busy left 13 of 15 neutral commits and 7
# of 16 changes undecided (9 hits, 2 misses, CV hit rate 0.889; the test also timed out).
# With effects of 2.3x or more and a 30% tolerance, in two runs with both cores busy: every
# change decided at 5 runs (lower ends 1.9-9.8, upper ends of the speed-ups 0.11-0.63),
# the neutral commits and cpu-regression equal within 5-9 runs but for 2 undecided in one
# run: 18 hits and 17-19 misses, CV hit rate 0.944 both times (the one missed hit is the
# one whose changed function ranks lowest, docs/prediction.md). Retrained on the stored
# verdicts with cpu-regression equal, undecided or worse: 0.944-0.947; with 1 to 5 random
# neutral commits left out (10 draws): 0.944; with 6 left out, once 0.889 in 2 draws.
# Took 6-8 minutes with both cores busy (the CTest timeout allows for more,
# tests/CMakeLists.txt).
. "$SRCDIR/tests/cli/lib/common.bash"

start=$(date +%s)
sh "$SRCDIR/tests/cli/lib/predict_history.sh" "$TEST_TMP/kv" >/dev/null || fail "history"
cd "$TEST_TMP/kv"
nr=$(git rev-list --count HEAD)
[ "$nr" -ge 30 ] || fail "only $nr commits"
# -fno-inline: each function keeps its own code, as in a debug-friendly release build.
cat >revperf.ini <<'INI'
[build]
command = make -s bench CFLAGS='-O1 -g -fno-inline'
[benchmark "ingest-query"]
command = ./build/kvstore --records 8000 --queries 200000 --log data/kv.log
metrics = cpu, wall
primary = cpu
tolerance = 30%
runs = 5..12
INI

# Dynamic data of every commit, two at a time (the first alone: it creates the database).
git rev-list --reverse HEAD >commits.txt
"$REVPERF" run --dynamic -q "$(head -1 commits.txt)" >dyn.txt 2>dyn.err || { cat dyn.err; fail "run"; }
tail -n +2 commits.txt | xargs -P 2 -I{} "$REVPERF" run --dynamic -q {} >>dyn.txt 2>dyn.err ||
	{ cat dyn.err; fail "run --dynamic"; }
[ "$(grep -c 'functions reached' dyn.txt)" = "$nr" ] || { cat dyn.txt; fail "dynamic data"; }
echo "dynamic data: $(($(date +%s) - start)) s" >&2

# Every commit against its parent (exit 1 when it got worse).
tail -n +2 commits.txt | while read -r sha; do
	status=0
	"$REVPERF" compare "$sha~1" "$sha" -q >/dev/null 2>cmp.err || status=$?
	[ $status -le 1 ] || { cat cmp.err; fail "compare $sha: exit $status"; }
done || exit 1
echo "comparisons: $(($(date +%s) - start)) s" >&2

expect_exit 0 "$REVPERF" train --evaluate -f json
cp out.txt train.json
hits=$(json_get train.json "d['hits']")
misses=$(json_get train.json "d['misses']")
[ "$hits" -ge 6 ] || fail "only $hits hits: the history's performance changes were not seen"
[ "$misses" -ge 4 ] || fail "only $misses misses"
python3 - train.json <<'PY' || fail "cross-validation"
import json, sys
d = json.load(open(sys.argv[1]))
e = d["evaluation"]["common"]["total"]
print("common predictor %s: %d hits, %d misses; 10-fold CV hit rate %.3f, dismiss rate %s"
      % (d["predictors"]["common"]["indicators"], d["hits"], d["misses"], e["hit_rate"],
         "%.3f" % e["dismiss_rate"] if e["dismiss_rate"] is not None else "-"), file=sys.stderr)
assert d["evaluation"]["k"] == 10, d["evaluation"]["k"]
assert e["hits"] == d["hits"] and e["misses"] == d["misses"], e
assert e["hit_rate"] >= 0.9, e
# which tuples cross-validation got wrong, by commit and benchmark
c = d["evaluation"]["common"]
assert len(c["missed_hits"]) == e["hits"] - e["hits_predicted"], c
assert len(c["flagged_misses"]) == e["misses"] - e["misses_dismissed"], c
assert all(len(x["commit"]) == 40 and x["bench"] == "ingest-query"
           for x in c["missed_hits"] + c["flagged_misses"]), c
PY

# The tuples are stored with the predictors, one per (commit, benchmark).
[ "$(sqlite3 .revperf/revperf.db "select nr_tuples from predictors where scope = 'common'")" = \
	$((hits + misses)) ] || fail "stored tuples"
sqlite3 .revperf/revperf.db "select tuples from predictors where scope = 'common'" >tuples.json
[ "$(json_get tuples.json "len(d)")" = $((hits + misses)) ] || fail "tuples JSON"

# A hot function's change is predicted, with the indicator that fired.
expect_exit 0 "$REVPERF" predict h-key-snprintf -f json
[ "$(json_get out.txt "d['run']")" = "['ingest-query']" ] || fail "h-key-snprintf not run"
[ "$(json_get out.txt "d['benchmarks'][0]['reason']")" = fired ] || fail "not fired"
expect_exit 0 "$REVPERF" predict h-key-snprintf
expect_grep '^  ingest-query +.+ \(common predictor\); ancestor [0-9a-f]{12} \(1 back\)' out.txt
echo "total: $(($(date +%s) - start)) s" >&2
echo ok
