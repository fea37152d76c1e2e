# A benchmark measured at one commit with two commands (its command edited in revperf.ini
# between two compares) has two programs' runs on one build: history's median and the
# report's took them together, a number nobody measured (zlib trial: 290 M and 1.57 G
# instructions gave 932 M). Each commit now keeps the command it was measured with last
# (history: the command its verdict judged), and the report says what it left out.
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo repo
expect_exit 1 "$REVPERF" compare base slow -q
# base writes 1000 bytes and slow 3000; the new command 7000 more on both
sed -i 's|^command = sh ./work.sh$|command = sh ./work.sh \&\& head -c 7000 /dev/zero > o2.bin|' revperf.ini
grep -q 'o2.bin' revperf.ini || fail "the command was not changed: $(cat revperf.ini)"
expect_exit 1 "$REVPERF" compare base slow -q
expect_exit 0 "$REVPERF" history slow -n 2 -f json
python3 - out.txt <<'PY' || fail "history's medians mix the two commands: $(cat out.txt)"
import json, sys
d = json.load(open(sys.argv[1]))
s = [s for s in d["series"] if s["benchmark"] == "write" and s["metric"] == "wchar"][0]
assert [p["median"] for p in s["points"]] == [8000.0, 10000.0], s["points"]
PY
expect_exit 0 "$REVPERF" report -o site
expect_grep 'write: 6 values of another command of the benchmark left out at 2 commits' err.txt
sed 's/<[^>]*>/ /g' "site/commits/$(git rev-parse slow).html" >page.txt
# the median of the 3 runs of the command measured last (10,000 bytes), not of all 6
expect_grep 'write +wchar +9\.77 KiB +9\.77 KiB \(min = max, fewer than 6 runs\) +3 ' page.txt
echo ok
