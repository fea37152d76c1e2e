# The JUnit message of a counted metric (ir) names the runs and the tolerance that judged
# it: its counted runs under valgrind and the count tolerance. It said "0 + 0 runs;
# tolerance 2%" (the timing runs, none for a benchmark of counted metrics alone, and the
# timing tolerance), beside a Markdown summary and a text report that said 2 + 2 runs and
# 0.1%. Its time is that of the counted runs.
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

make_tiny_repo proj
cd proj
printf 'metrics = ir\nprimary = ir\n' >>revperf.ini
git commit -qam "ir only"
git tag ir-base
printf 'i=0; while [ $i -lt 4000 ]; do i=$((i+1)); done\n' >work.sh
git commit -qam slower

expect_exit 1 "$REVPERF" ci --base ir-base --junit junit.xml --summary summary.md -q
expect_grep '<failure type="worse" message="worse: x[0-9.]+ \(primary; 2 \+ 2 runs counted; count tolerance 0.1%\)"' junit.xml
expect_no_grep '0 \+ 0 runs' junit.xml
expect_grep '\| spin \| ir \(primary\) \|.*\| 2 \+ 2 runs \|' summary.md
# The time of the test case and the suite: the counted runs' (4 runs under valgrind, each
# over 0.1 s), not the 0.001 s of the timing phase that a benchmark of counted metrics
# alone does not have (jq trial: time="0.001" for 15.3 s of counted runs).
python3 - junit.xml <<'PY' || fail "JUnit times: $(cat junit.xml)"
import re, sys
x = open(sys.argv[1]).read()
times = [float(t) for t in re.findall(r'time="([0-9.]+)"', x)]
assert len(times) == 3 and min(times) >= 0.4, times
PY

# A timed metric beside it keeps its own runs (pairs) and tolerance.
sed -i 's/^metrics = ir$/metrics = wchar, ir/' revperf.ini
expect_exit 1 "$REVPERF" ci --base ir-base --junit junit2.xml --summary summary2.md -q
expect_grep 'name="wchar".*' junit2.xml
expect_grep '<system-out>equal: x1\.0+ \(not primary; [0-9]+ (pairs|\+ [0-9]+ runs); tolerance 2%\)</system-out>' junit2.xml
expect_grep 'message="worse: x[0-9.]+ \(primary; 2 \+ 2 runs counted; count tolerance 0.1%\)"' junit2.xml
echo ok
