# history's change points show the medians in the metric's unit, as the verdicts do:
# "median 121 ms -> 86.6 ms", not "median 0.121238 -> 0.0865986" (seconds, no unit), and
# bytes as bytes. The benchmark writes 1000 bytes at five commits, 3000 at the next five (of
# the 252 ways to split ten, one: the permutation test's p stays far below 0.05); then a
# shift below the tolerance, which is not called a change.
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo repo
cd repo
cat >revperf.ini <<'INI'
[build]
command = echo built > built.txt
[benchmark "write"]
command = sh ./work.sh
runs = 2..2
warmup = 0
metrics = wchar
primary = wchar
INI
printf 'head -c 1000 /dev/zero > out.bin\n' >work.sh
git add . && git commit -qm w0
for i in 1 2 3 4; do echo $i >x && git add x && git commit -qm "w$i"; done
printf 'head -c 3000 /dev/zero > out.bin\n' >work.sh
git commit -qam more
for i in 5 6 7 8; do echo $i >x && git commit -qam "w$i"; done

expect_exit 0 "$REVPERF" history -n 10 -q
expect_grep '^  write wchar: at [0-9a-f]{12} \(more\): median 1000 B -> 2.93 KiB \(\+200\.0%, 99\.00% CI \+200\.0% to \+200\.0%\), p = ' out.txt
expect_exit 0 "$REVPERF" history -n 10 -q -f markdown
expect_grep 'median 1000 B -> 2.93 KiB' out.txt

# A shift below the tolerance (2%) is no change point, as compare calls it equal: five
# more commits at 3030 bytes (+1%). Exact values: E-divisive finds the split, and it is
# dropped and counted, not shown as a change.
printf 'head -c 3030 /dev/zero > out.bin\n' >work.sh
git commit -qam tiny
for i in 9 10 11 12; do echo $i >x && git commit -qam "w$i"; done
expect_exit 0 "$REVPERF" history -n 15 -q -f json
python3 - out.txt <<'PY' || fail "a shift below the tolerance: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["summary"]: x for x in d["commits"]}
v = [v for v in c["tiny"]["verdicts"] if v["metric"] == "wchar"][0]
assert v["verdict"] == "equal", v
s = [x for x in d["series"] if x["metric"] == "wchar"][0]
assert [p["sha"] for p in s["change_points"]] == [c["more"]["sha"]], s["change_points"]
assert s["min_change"] == 0.02 and s["below_min_change"] == 1, s
PY
expect_exit 0 "$REVPERF" history -n 15 -q
expect_grep '^  write wchar: 1 shift below the tolerance 2% not counted as change point$' out.txt
echo ok
