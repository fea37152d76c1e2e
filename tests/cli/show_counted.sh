# revperf show of a comparison decided on a counted metric (ir): show judges the counted
# metrics again from the counted runs stored up to that comparison, with their functions,
# and runs nothing under valgrind. Before, it left the primary ir "unmeasured" (counted
# runs are not judged again here): on SQLite's speedtest1 with primary = ir, show and
# show -f json said nothing of the verdict that decided compare's exit code.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

make_spin_repo repo
spin 100000
git add . && git commit -qm base && git tag base
spin 110000 && git commit -qam slower && git tag slow

expect_exit 1 "$REVPERF" compare base slow -q -f json
# the counted runs' time is said (the benchmark's own time is the timing runs')
[ "$(json_get out.txt "d['benchmarks'][0]['counted']['elapsed_s'] > 0")" = True ] ||
	fail "no time of the counted runs: $(json_get out.txt "d['benchmarks'][0]['counted']")"
profiles=$(count profiles)
expect_exit 0 "$REVPERF" show base slow
expect_grep 'ir \*  *worse  *1\.0[0-9]+ ' out.txt
expect_grep 'counted under valgrind \(callgrind, 2 \+ 2 runs' out.txt
expect_grep 'finding +main' out.txt
expect_grep 'spin ir: worse, \+[0-9.]+% \(exact' out.txt
expect_no_grep 'unmeasured|compare --more' out.txt
expect_exit 0 "$REVPERF" show base slow -f json
python3 - out.txt <<'PY' || fail "show -f json: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
b = d["benchmarks"][0]
ir = [m for m in b["metrics"] if m["name"] == "ir"][0]
assert ir["verdict"] == "worse" and ir["method"] == "exact", ir
assert ir["baseline"]["n"] == 2 and ir["target"]["n"] == 2, ir
assert b["counted"]["runs"] == [2, 2] and b["counted"]["functions"], b["counted"]
assert b["counted"]["elapsed_s"] is None, b["counted"]  # nothing ran
assert d["exit_code"] == 1, d["exit_code"]
PY
[ "$(count profiles)" = "$profiles" ] || fail "show counted again: $(count profiles) profiles, $profiles before"
# compare asked for again shows the finished comparison from the store, as show does; a
# new one (--more) reuses its counted runs.
expect_exit 1 "$REVPERF" compare base slow
expect_grep 'shown from the store, nothing ran' err.txt
expect_grep 'ir \*  *worse  *1\.0[0-9]+ ' out.txt
expect_grep 'counted under valgrind \(callgrind, 2 \+ 2 runs\)' out.txt
expect_exit 1 "$REVPERF" compare base slow --more
expect_grep 'ir \*  *worse  *1\.0[0-9]+ ' out.txt
expect_grep 'counted under valgrind \(callgrind, 2 \+ 2 runs, 2 \+ 2 reused, [0-9.]+ s\)' out.txt
[ "$(count profiles)" = "$profiles" ] || fail "compare counted again: $(count profiles) profiles, $profiles before"

# Counts that differ every run: compare topped both sides up to MAX (6) and judged them
# with the statistics; show takes the same 6 + 6 and gives the same verdict.
cat >vary.sh <<'SH'
n=$(( $(od -An -N2 -tu2 /dev/urandom) % 500 + 100 ))
i=0; while [ $i -lt $n ]; do i=$((i+1)); done
SH
cat >revperf.ini <<'INI'
[benchmark "vary"]
command = sh vary.sh
metrics = ir
primary = ir
runs = 2..2
warmup = 0
INI
git add -A && git commit -qm vary && git tag vary1
echo "# the same script" >>vary.sh && git commit -qam "vary again" && git tag vary2
expect_exit 0 "$REVPERF" compare vary1 vary2 -q -f json
cp out.txt compared.json
profiles=$(count profiles)
expect_exit 0 "$REVPERF" show vary1 vary2 -f json
python3 - compared.json out.txt <<'PY' || fail "show of inexact counts: $(cat out.txt)"
import json, sys
c, s = (json.load(open(p))["benchmarks"][0] for p in sys.argv[1:3])
ir = lambda b: [m for m in b["metrics"] if m["name"] == "ir"][0]
assert ir(s)["deterministic"] is False, ir(s)
assert ir(s)["baseline"]["n"] == 6 and ir(s)["target"]["n"] == 6, ir(s)
assert ir(s)["values"] == ir(c)["values"], (ir(s)["values"], ir(c)["values"])
assert ir(s)["verdict"] == ir(c)["verdict"] and ir(s)["ci"] == ir(c)["ci"], (ir(s), ir(c))
PY
[ "$(count profiles)" = "$profiles" ] || fail "show ran counted runs: $(count profiles), $profiles before"
