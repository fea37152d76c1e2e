# compare --import with Google Benchmark JSON (fixtures with repetitions, aggregates,
# counters, an errored case and a new case): the slowed case is worse, the others are not;
# counter directions; one-sided and errored cases reported, not dropped.
. "$SRCDIR/tests/cli/lib/common.bash"
D="$SRCDIR/tests/data/import"

expect_exit 1 "$REVPERF" compare --import "$D/gbench_base.json" "$D/gbench_slow.json" -f json
python3 - out.txt <<'PY' || fail "gbench verdicts"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exit_code"] == 1
b = {x["name"]: x for x in d["benchmarks"]}
m = lambda bench, metric: next(x for x in b[bench]["metrics"] if x["name"] == metric)
assert m("BM_Sort/1024", "real_time")["verdict"] == "worse"
assert m("BM_Sort/1024", "real_time")["primary"] is True
assert m("BM_Sort/1024", "cpu_time")["primary"] is False
assert m("BM_Hash", "real_time")["verdict"] == "equal"
assert m("BM_Copy/64", "real_time")["verdict"] == "better"
# aggregates (_mean, _median, _stddev, _cv) are not samples: 5 repetitions per side
assert b["BM_Sort/1024"]["runs"]["baseline"]["ok"] == 5
assert "BM_Sort/1024_mean" not in b
# throughput: higher is better; a plain counter: lower is better
bps = m("BM_Copy/64", "bytes_per_second")
assert bps["direction"] == "higher-is-better" and bps["unit"] == "B/s", bps
assert bps["ratio"] > 1 and bps["verdict"] == "better", bps
ips = m("BM_Hash", "items_per_second")
assert ips["direction"] == "higher-is-better" and ips["verdict"] == "equal", ips
col = m("BM_Copy/64", "collisions")
assert col["direction"] == "lower-is-better" and col["verdict"] == "worse", col
# a case only in the target: kept, unmeasured; an errored repetition: a run issue
assert m("BM_New", "real_time")["verdict"] == "unmeasured"
assert m("BM_New", "real_time")["target"]["n"] == 3
[issue] = b["BM_Fail"]["run_issues"]
assert issue["side"] == "target" and "setup failed" in issue["detail"], issue
PY
expect_grep "benchmark 'BM_New' is only in .*gbench_slow.json" err.txt
expect_grep "benchmarks\[27\]: error: setup failed: no such file \('BM_Fail'\): excluded" err.txt

# Text: the same verdicts, the primary metric marked.
expect_exit 1 "$REVPERF" compare --import "$D/gbench_base.json" "$D/gbench_slow.json"
expect_grep '^BM_Sort/1024: 5 \+ 5 runs' out.txt
expect_grep '^  real_time \* +worse ' out.txt
expect_grep '^  BM_Hash real_time: equal' out.txt

# A/A: the same file on both sides: no regression, nothing worse or better.
expect_exit 0 "$REVPERF" compare --import "$D/gbench_base.json" "$D/gbench_base.json" -f json
python3 - out.txt <<'PY' || fail "gbench A/A"
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    for m in b["metrics"]:
        assert m["verdict"] in ("equal", "undecided"), (b["name"], m)
PY
echo ok
