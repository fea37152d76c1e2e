# End to end on a generated history of the example project (tests/cli/lib/predict_history.sh:
# 38 commits; 18 change a hot function's work on purpose, by 12% to 6x, cpu-regression by
# about 10%, the rest are neutral): dynamic data at every commit (real callgrind runs),
# every commit compared with its parent (real measurements: the verdicts label the tuples,
# undecided ones are left out), then `revperf train --evaluate`: the common predictor must
# predict at least 90% of the hits under 10-fold cross-validation. The dismiss rate is
# printed. Takes one and a half to two and a half minutes on two cores.
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
tolerance = 10%
runs = 5..10
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
