# bisect's steps are a table: the commit subject starts in the same column on every step
# line, whatever the ratio's digits (x1.000, x12.000), its runs, or no ratio at all (a
# commit that does not build). Before, each cell was as wide as its text and the columns
# after the ratio shifted. Decided on wchar (exact on a busy machine).
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo repo
# base writes 1000 bytes; after it: neutral commits, one that does not build, its fix,
# then one that writes 12000 bytes (x12.000) and more neutral commits.
git checkout -q base
git tag -d slow >/dev/null && git reset -q --hard base
sed -i 's/^command = echo built > built.txt$/command = test ! -e broken/' revperf.ini
git commit -qam "build fails while 'broken' exists"
commit() { echo "$1" >>notes.txt && git add -A && git commit -qm "$1"; }
commit n1
touch broken && commit broken
rm broken && commit fix
printf 'head -c 12000 /dev/zero > out.bin\n' >work.sh && commit "twelve times more"
commit n2 && commit n3

expect_exit 0 "$REVPERF" bisect base HEAD --bench write -q
grep -E '^  (GOOD against|culprit against parent)' out.txt >steps.txt
python3 - steps.txt out.txt <<'PY' || fail "the steps are not aligned: $(cat out.txt)"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
subjects = ("n1", "broken", "fix", "twelve times more", "n2", "n3",
            "build fails while 'broken' exists")
cols = set()
ratios = set()
for line in lines:
    s = [x for x in subjects if line.endswith("  " + x)]
    assert s, line
    cols.add(len(line) - len(max(s, key=len)))
    m = re.search(r" x([0-9.]+)", line)
    ratios.add(m.group(1) if m else None)
# the same column, and the lines differ in what they hold before it
assert len(cols) == 1, (cols, lines)
assert "1.000" in ratios and "12.000" in ratios, ratios
PY
expect_grep '^culprit: [0-9a-f]{40} twelve times more$' out.txt
echo ok
