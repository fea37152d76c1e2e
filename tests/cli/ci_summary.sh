# revperf ci: the merge base of --base and HEAD against HEAD; a Markdown summary (also
# appended to $GITHUB_STEP_SUMMARY) and JUnit XML with a failure for each worse metric;
# exit status as compare. Also: HEAD is the merge base, the default base, bad input.
# The benchmark reports its work (`work 50`), the primary metric: the same in every run, so
# the verdict does not depend on the machine's load. With wall time primary, a 50 ms nap
# against a 100 ms one ended undecided with both cores kept busy (97 +- 38 ms against
# 154 +- 25 ms in 6 + 6 runs: exit 0 where 1 was expected).
. "$SRCDIR/tests/cli/lib/common.bash"

mkdir repo && cd repo
git init -q --initial-branch=main . && git config user.email t@example.com &&
	git config user.name test
cat >revperf.ini <<'INI'
[build]
command = true
[benchmark "nap"]
command = sh work.sh
metrics = wall, cpu
metric.work = /^work ([0-9]+)$/ unit=ms
primary = work
runs = 3..6
warmup = 0
tolerance = 10%
INI
printf 'sleep 0.05\necho work 50\n' >work.sh
git add . && git commit -qm base
echo more >>notes.txt && git add notes.txt && git commit -qm "main moves on"
git checkout -q -b feature HEAD~1
printf 'sleep 0.10\necho work 100\n' >work.sh && git commit -qam "slower nap"

expect_exit 1 "$REVPERF" ci --base main --summary summary.md --junit junit.xml
expect_grep 'nap' out.txt
# ci labels each side by its sha: the header gives it once ('baseline 0123abcd4567 (0123
# abcd4567)' before; libdeflate trial)
expect_grep '^baseline [0-9a-f]{12}  vs  target ' out.txt
expect_no_grep '^baseline ([0-9a-f]{12}) \(\1\)' out.txt
expect_grep 'worse' summary.md
# The summary's first line is the headline, over the primary metrics as the text summary:
# work is worse; wall and cpu are the machine's business, left to the table and named after
# the count only when they changed ("; other metrics: 1 regression": the nap doubled).
head -1 summary.md >headline.txt
expect_grep '^## revperf: 1 regression, 0 improvements, 0 unchanged(; other metrics: [0-9a-z, ]+)?$' headline.txt
python3 - headline.txt summary.md <<'PY' || fail "the headline does not count the table: $(cat headline.txt)"
import re, sys
head = open(sys.argv[1]).read()
rows = [l for l in open(sys.argv[2]) if l.startswith("| nap |") and "(primary)" in l]
n = lambda word: sum(word in r for r in rows)
want = (n("**worse**"), n("better"), n("equal |"), n("undecided"))
got = tuple(int(re.search(p, head).group(1)) if re.search(p, head) else 0 for p in
            (r"(\d+) regressions?", r"(\d+) improvements?", r"(\d+) unchanged", r"(\d+) undecided"))
assert got == want and sum(want) == 1, (got, want)
PY
python3 - junit.xml "$(git rev-parse --short=12 main~1)" <<'PY' || fail "junit: $(cat junit.xml)"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites" and int(root.get("failures")) >= 1, root.attrib
suite = root.find("testsuite")
assert sys.argv[2] in suite.get("name"), suite.get("name")   # the merge base, not main
cases = {(c.get("classname"), c.get("name")): c for c in suite.iter("testcase")}
assert set(cases) == {("revperf.nap", m) for m in ("wall", "cpu", "work")}, cases.keys()
f = cases[("revperf.nap", "work")].find("failure")
assert f is not None and f.get("type") == "worse" and "primary" in f.get("message"), f
# work is exact (every run printed the same): its interval is the ratio, printed once
assert f.get("message").startswith("worse: x2.0000 (primary;"), f.get("message")
assert int(suite.get("tests")) == 3
PY

# A revision name that XML must escape.
git branch 'a&b<c>' feature
expect_exit 1 "$REVPERF" ci --base main --head 'a&b<c>' --summary s1.md --junit j1.xml -q
python3 - j1.xml <<'PY' || fail "escaping: $(cat j1.xml)"
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
assert suite.get("name").endswith("..a&b<c>"), suite.get("name")
PY

# Default base (no origin: main), default files under .revperf/ci/, and the GitHub step
# summary appended to.
printf '# earlier step\n' >step.md
GITHUB_STEP_SUMMARY=$PWD/step.md expect_exit 1 "$REVPERF" ci -q
expect_grep '^# earlier step$' step.md
expect_grep 'worse' step.md
[ -s .revperf/ci/junit.xml ] || fail "no default junit.xml"
python3 -c "import xml.etree.ElementTree as ET; ET.parse('.revperf/ci/junit.xml')" ||
	fail "default junit.xml is not XML"

# HEAD is the merge base: nothing to compare, exit 0.
git checkout -q main
expect_exit 0 "$REVPERF" ci --base main --summary s2.md --junit j2.xml
expect_grep 'nothing to compare' s2.md
expect_grep 'tests="0"' j2.xml

# A neutral change: exit 0 and no failure.
git checkout -q -b neutral main
echo again >>notes.txt && git commit -qam "notes only"
expect_exit 0 "$REVPERF" ci --base main~1 --summary s3.md --junit j3.xml
python3 - j3.xml <<'PY' || fail "neutral junit: $(cat j3.xml)"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.get("failures") == "0", root.attrib
assert root.find("testsuite/testcase/system-out") is not None
PY

# Bad input: an unknown base, no default base, an unwritable output.
expect_exit 2 "$REVPERF" ci --base nosuch
expect_grep "unknown revision 'nosuch'" err.txt
expect_exit 2 "$REVPERF" ci --base main --junit /nonexistent/dir/j.xml
expect_grep 'give a writable --junit FILE' err.txt
git branch -q -m main trunk
expect_exit 2 "$REVPERF" ci
expect_grep 'no base branch' err.txt
expect_one_line err.txt
