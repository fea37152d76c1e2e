# The JUnit message of a counted metric (ir) names the runs and the tolerance that judged
# it: its counted runs under valgrind and the count tolerance. It said "0 + 0 runs;
# tolerance 2%" (the timing runs, none for a benchmark of counted metrics alone, and the
# timing tolerance), beside a Markdown summary and a text report that said 2 + 2 runs and
# 0.1%.
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

# A timed metric beside it keeps its own runs (pairs) and tolerance.
sed -i 's/^metrics = ir$/metrics = wchar, ir/' revperf.ini
expect_exit 1 "$REVPERF" ci --base ir-base --junit junit2.xml --summary summary2.md -q
expect_grep 'name="wchar".*' junit2.xml
expect_grep '<system-out>equal: x1\.0+ \(not primary; [0-9]+ (pairs|\+ [0-9]+ runs); tolerance 2%\)</system-out>' junit2.xml
expect_grep 'message="worse: x[0-9.]+ \(primary; 2 \+ 2 runs counted; count tolerance 0.1%\)"' junit2.xml
echo ok
