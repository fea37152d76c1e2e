# bisect --metric takes one metric: a list or `all` is refused in one line before any
# build or run. Before, it became the steps' primary, GOOD and BAD were built and compared
# (every run stored), and only then did bisect say the benchmark has no metric 'all'.
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo repo

for m in all wchar,wall "wchar wall"; do
	expect_exit 2 "$REVPERF" bisect --bench write --metric "$m" base slow
	expect_one_line err.txt
	expect_grep "--metric takes one metric, got '$m'" err.txt
	expect_no_grep 'building' err.txt
	[ ! -d .revperf/worktrees ] || [ -z "$(ls .revperf/worktrees)" ] || fail "--metric '$m': a revision was checked out"
done

# One metric still bisects: slow writes more than base.
expect_exit 0 "$REVPERF" bisect --bench write --metric wchar base slow -q
expect_grep '^culprit: ' out.txt
echo ok
