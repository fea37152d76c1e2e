# compare --import with hyperfine exports produced here: a slower command is worse (exit 1),
# the reverse better, the same command on both sides never worse or better; excluded runs.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v hyperfine >/dev/null || fail "hyperfine is not installed (scripts/install-deps.sh installs it)"

hf() { # OUT COMMAND...: ten runs, no shell, exported per run
	local out=$1; shift
	hyperfine -N --runs 10 --warmup 1 --style none --export-json "$out" "$@" >/dev/null 2>hf.err ||
		{ cat hf.err; fail "hyperfine failed"; }
}
# Ten times as long. Twice (0.01 s against 0.02 s) was hidden on a busy machine, where
# waking up takes up to tens of ms: with both cores kept busy, sleep 0.01 took 13-20 ms on
# average (up to 40) and sleep 0.02 27-34 ms (up to 92), once 38 ms against 36 ms (exit 0
# where 1 was expected). sleep 0.1 took 102-115 ms: ratios 5.7-9.1, 99% lower ends 3.7-7.0
# (9 pairs of exports).
hf a.json 'sleep 0.01'
hf b.json 'sleep 0.1'
hf a2.json 'sleep 0.01'

# Ten times as long: worse, whatever the format.
expect_exit 1 "$REVPERF" compare --import a.json b.json -f json
python3 - out.txt <<'PY' || fail "slower command not judged worse"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["baseline"]["label"] == "a.json" and d["target"]["label"] == "b.json", d
assert d["exit_code"] == 1, d["exit_code"]
[b] = d["benchmarks"]
m = b["metrics"][0]
assert m["name"] == "wall" and m["primary"] and m["unit"] == "s", m
assert m["verdict"] == "worse", m
assert m["method"] == "welch" and m["pairs"] == 0, m   # imported samples are not pairs
assert m["baseline"]["n"] == 10 and m["target"]["n"] == 10, m
assert 3 < m["ratio"] < 12, m["ratio"]
assert m["q_bh"] is not None and m["q_bh"] >= m["p"] - 1e-12, m
PY
# the two commands differ: paired in order, with a warning that says so
expect_grep 'no benchmark name in common; pairing their 1 benchmark in order' err.txt
expect_exit 1 "$REVPERF" compare --import a.json b.json
expect_grep '^  wall \* +worse ' out.txt
expect_grep '^baseline a.json  vs  target b.json' out.txt
expect_exit 1 "$REVPERF" compare --import a.json b.json -f markdown
expect_grep '\| wall \(primary\) \| :red_circle: \*\*worse\*\* \|' out.txt

# Reversed: better, no regression.
expect_exit 0 "$REVPERF" compare --import b.json a.json -f json
[ "$(json_get out.txt "d['benchmarks'][0]['metrics'][0]['verdict']")" = better ] || fail "reverse not better"

# The same command on both sides (A/A), matched by name: never worse or better. The two
# exports were measured one after the other, not interleaved, so machine drift between them
# is real (2% is easily exceeded on a loaded CI machine): judge with a 25% tolerance.
expect_exit 0 "$REVPERF" compare --import a.json a2.json -f json --tolerance 25%
expect_no_grep 'pairing' err.txt
v=$(json_get out.txt "d['benchmarks'][0]['metrics'][0]['verdict']")
case $v in equal|undecided) ;; *) fail "A/A verdict is $v" ;; esac
expect_exit 0 "$REVPERF" compare --import a.json a.json -f json
v=$(json_get out.txt "d['benchmarks'][0]['metrics'][0]['verdict']")
case $v in equal|undecided) ;; *) fail "identical files: verdict is $v" ;; esac

# --tolerance and --alpha apply; a tolerance wider than the change makes it not worse. The
# change: a.json with every time 1.5 times longer (the spread of the samples stays: the
# 95% interval is as wide as the machine made it: 1.0-2.24 at most in 3 exports made with
# both cores busy, well inside 400%).
python3 - a.json a15.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"][0]
for k in ("mean", "median", "min", "max", "user", "system"):
    if isinstance(r.get(k), (int, float)):
        r[k] *= 1.5
r["times"] = [t * 1.5 for t in r["times"]]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 0 "$REVPERF" compare --import a.json a15.json --tolerance 400% --alpha 0.05 -f json
[ "$(json_get out.txt "round(d['benchmarks'][0]['metrics'][0]['ratio'], 6)")" = 1.5 ] || fail "1.5x"
[ "$(json_get out.txt "d['alpha']")" = 0.05 ] || fail "--alpha not applied"
[ "$(json_get out.txt "d['benchmarks'][0]['tolerance']")" = 4.0 ] || fail "--tolerance not applied"
[ "$(json_get out.txt "d['benchmarks'][0]['metrics'][0]['verdict']")" = equal ] || fail "not equal within 400%"

# A run with a non-zero exit code is excluded, with a warning, and listed in the report.
python3 - b.json b-failed.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["results"][0]["exit_codes"][2] = 1
d["results"][0]["times"][2] = 99.0   # would dominate the mean if it were kept
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit 1 "$REVPERF" compare --import a.json b-failed.json -f json
expect_grep 'b-failed.json: results\[0\] run 3: exit code 1 \(.sleep 0.1.\): excluded' err.txt
python3 - out.txt <<'PY' || fail "excluded run"
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"][0]
assert b["runs"]["target"] == {"ok": 9, "reused": 0, "failed": 1}, b["runs"]
[issue] = b["run_issues"]
assert issue["side"] == "target" and issue["status"] == "failed" and issue["exit_code"] == 1, issue
assert b["metrics"][0]["target"]["n"] == 9 and b["metrics"][0]["target"]["mean"] < 1, b["metrics"][0]
PY
echo ok
