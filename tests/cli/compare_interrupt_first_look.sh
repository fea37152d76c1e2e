# A comparison interrupted before its first look (fewer than MIN runs on a side) has no
# verdict, and neither has its replay: before, revperf show judged its 2 + 2 runs at the
# first look's alpha (runs 3..6: a look at 3 + 3) and printed a verdict the comparison
# never reached (A/A trials at alpha 0.2: 2 of 156 interrupted comparisons shown as worse
# or better), and so could the interrupted comparison's own report.
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo repo
cd repo
# The fifth run (of either side) interrupts revperf: 2 + 2 runs are stored.
v_ini c "sh ./c.sh" "runs = 3..6"
{ signal_at_run 4 INT "$TEST_TMP/pid"; echo 'echo "v $(cat v)"'; } >c.sh
echo 1000 >v
git add . && git commit -qm c && git tag c0
echo 1100 >v
git commit -qam "10% more" && git tag c1

"$REVPERF" compare c0 c1 -q -f json >out.txt 2>err.txt &
echo $! >"$TEST_TMP/pid"
got=0
wait $! || got=$?
[ "$got" = 130 ] || { cat out.txt err.txt; fail "interrupted: exit $got"; }
cp out.txt interrupted.json
verdict() { json_get "$1" "d['benchmarks'][0]['runs'], [(m['verdict'], m['unmeasured_reason']) for m in d['benchmarks'][0]['metrics']]"; }
python3 - interrupted.json <<'PY' || fail "interrupted: $(verdict interrupted.json)"
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
assert min(b["runs"]["baseline"]["ok"], b["runs"]["target"]["ok"]) < 3, b["runs"]
assert all(m["verdict"] == "unmeasured" for m in b["metrics"]), b["metrics"]
PY
expect_exit 0 "$REVPERF" show c0 c1 -f json
python3 - out.txt <<'PY' || fail "shown: $(verdict out.txt)"
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"][0]
assert min(b["runs"]["baseline"]["ok"], b["runs"]["target"]["ok"]) < 3, b["runs"]
assert all(m["verdict"] == "unmeasured" for m in b["metrics"]), b["metrics"]
assert not b["decided"], b
PY
# Resumed: the first look at 3 + 3, worse.
expect_exit 1 "$REVPERF" compare c0 c1 -q -f json
echo ok
