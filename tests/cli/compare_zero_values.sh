# Values that can be zero (METHODS.md 2.6): a change of a few milliseconds in a metric
# counted in seconds is never `equal` because some runs measured 0. The ratio is that of
# arithmetic means with a bootstrap interval, named in every format; a side of zeros only
# is undecided with its reason; both sides all zero are equal.
. "$SRCDIR/tests/cli/lib/common.bash"
D="$SRCDIR/tests/data/import"

# A loop of 1000 against one of 15000 iterations: user CPU about 1 ms against 10 ms, a
# change far beyond machine noise (CPU time, not wall time). Without a 0 among the values
# this is the log-scale interval; with one (a tick that fell in the kernel) the bootstrap.
# Either way the verdict is worse: never `equal`, as ln(1 + x) in seconds made it.
printf 'i=0; while [ $i -lt $1 ]; do i=$((i+1)); done\n' >spin.sh
expect_exit 1 "$REVPERF" compare --cmd-a 'sh spin.sh 1000' --cmd-b 'sh spin.sh 15000' \
	--metrics wall,user --primary user --runs 5..30 -f json
python3 - out.txt <<'PY' || fail "spin: user CPU of a 15x longer loop"
import json, sys
d = json.load(open(sys.argv[1]))
m = {x["name"]: x for x in d["benchmarks"][0]["metrics"]}
u = m["user"]
assert u["primary"] and u["verdict"] == "worse", u
assert u["ratio"] > 3 and u["ci"][0] > 1.02, u
assert u["method"] in ("paired-t", "paired-bootstrap"), u
assert u["zeros"] == (u["method"] == "paired-bootstrap"), u
assert d["exit_code"] == 1
PY

# The same effect deterministically, with zeros in every comparison: a benchmark that
# reports its own seconds, 0 in a third of its runs, and 10x as much in the target
# (about 1.3 ms against 13 ms). ln(1 + x) made this `equal` +1.2%.
cat >cpu.sh <<'SH'
# cpu.sh SIDE SCALE: the run's "CPU seconds" from a per-side run counter
n=$(cat "count.$1" 2>/dev/null || echo 0); echo $((n + 1)) >"count.$1"
case $((n % 3)) in 0) v=0.0021 ;; 1) v=0 ;; *) v=0.0019 ;; esac
awk -v v="$v" -v s="$2" 'BEGIN { printf "cpu_s: %.6f\n", v * s }'
SH
zero_metric="cpu_s=/cpu_s: ([0-9.]+)/ unit=s"
expect_exit 1 "$REVPERF" compare --cmd-a 'sh cpu.sh a 1' --cmd-b 'sh cpu.sh b 10' \
	--metrics wall --metric "$zero_metric" --primary cpu_s --runs 6..30 --seed 11 -f json
python3 - out.txt <<'PY' || fail "reported seconds with zeros, 10x"
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"][0]
c = [m for m in b["metrics"] if m["name"] == "cpu_s"][0]
assert c["verdict"] == "worse", c
assert c["method"] == "paired-bootstrap" and c["zeros"] is True, c
assert c["resamples"] >= 9999 and c["reason"] is None, c
assert abs(c["ratio"] - c["target"]["mean"] / c["baseline"]["mean"]) < 1e-9, c   # of means
assert 5 < c["ratio"] < 20 and c["ci"][0] > 1.02, c
assert d["schema"] == "revperf-compare/6" and "log_shifted" not in c
PY
# Reversed: better. The text names the method and the metric it applies to.
rm -f count.*
expect_exit 0 "$REVPERF" compare --cmd-a 'sh cpu.sh b 10' --cmd-b 'sh cpu.sh a 1' \
	--metrics wall --metric "$zero_metric" --primary cpu_s --runs 6..30 --seed 11
expect_grep '^  cpu_s \* +better ' out.txt
expect_grep 'CI \(paired t over interleaved pairs; ratio of means, paired bootstrap \(zeros: cpu_s\)\)' out.txt
expect_grep '^  command cpu_s: better, ' out.txt
# Markdown says the method beside each interval (here every pair's ratio is 10: the
# bootstrap interval is that point, printed once).
rm -f count.*
expect_exit 1 "$REVPERF" compare --cmd-a 'sh cpu.sh a 1' --cmd-b 'sh cpu.sh b 10' \
	--metrics wall --metric "$zero_metric" --primary cpu_s --runs 6..30 --seed 11 -f markdown
expect_grep '^\| command \| cpu\\_s \(primary\) \| :red_circle: \*\*worse\*\* \| [0-9.]+ \| (\[[0-9.]+, [0-9.]+\]|[0-9.]+) \([0-9.]+%, paired-bootstrap\) \|' out.txt
expect_grep '^\| command \| wall \| .*, paired-t\) \|' out.txt

# A side of zeros only: undecided, with the reason, in every format; both all zero: equal.
rm -f count.*
expect_exit 0 "$REVPERF" compare --cmd-a 'sh cpu.sh a 0' --cmd-b 'sh cpu.sh b 1' \
	--metrics wall --metric "$zero_metric" --primary cpu_s --runs 5..5 -f json
python3 - out.txt <<'PY' || fail "all-zero baseline"
import json, sys
d = json.load(open(sys.argv[1]))
c = [m for m in d["benchmarks"][0]["metrics"] if m["name"] == "cpu_s"][0]
assert c["verdict"] == "undecided" and c["method"] == "none", c
assert c["reason"].startswith("every baseline value is 0"), c
assert c["ci"] == [0.0, None] and c["ratio"] is None, c   # infinite: JSON null
PY

# hyperfine exports (tests/data/import): 15 ms against 0 s was `equal` -1.5%.
expect_exit 0 "$REVPERF" compare --import "$D/hyperfine_15ms.json" "$D/hyperfine_0ms.json"
expect_grep '^  wall \* +undecided +0\.000 \[0\.000, inf\]' out.txt
expect_grep '^  wall: every target value is 0: the ratio B/A is 0 and has no interval' out.txt
expect_grep '^  \./bench wall: undecided: every target value is 0' out.txt
expect_no_grep 'measure more runs' out.txt   # more runs cannot help
expect_exit 0 "$REVPERF" compare --import "$D/hyperfine_15ms.json" "$D/hyperfine_0ms.json" -f markdown
expect_grep '^> note: \./bench wall: every target value is 0' out.txt
expect_exit 0 "$REVPERF" compare --import "$D/hyperfine_0ms.json" "$D/hyperfine_15ms.json" -f json
[ "$(json_get out.txt "d['benchmarks'][0]['metrics'][0]['verdict'], d['benchmarks'][0]['metrics'][0]['method']")" = "undecided none" ] ||
	fail "0 s against 15 ms"
# 1.5 ms with 3 of 10 runs at 0 s, against 15 ms: worse (exit 1), and reversed better.
expect_exit 1 "$REVPERF" compare --import "$D/hyperfine_1ms5_zeros.json" "$D/hyperfine_15ms.json" -f json
python3 - out.txt <<'PY' || fail "hyperfine 1.5 ms with zeros against 15 ms"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["benchmarks"][0]["metrics"][0]
assert m["verdict"] == "worse" and m["method"] == "bootstrap" and m["pairs"] == 0, m
assert 10 < m["ratio"] < 20 and m["ci"][0] > 2, m
PY
expect_exit 0 "$REVPERF" compare --import "$D/hyperfine_15ms.json" "$D/hyperfine_1ms5_zeros.json"
expect_grep '^  wall \* +better ' out.txt
expect_grep 'CI \(ratio of means, bootstrap \(zeros: wall\)\)' out.txt
# Both sides all 0: equal.
expect_exit 0 "$REVPERF" compare --import "$D/hyperfine_0ms.json" "$D/hyperfine_0ms.json" -f json
[ "$(json_get out.txt "d['benchmarks'][0]['metrics'][0]['verdict'], d['benchmarks'][0]['metrics'][0]['method']")" = "equal exact" ] ||
	fail "both all zero"
echo ok
