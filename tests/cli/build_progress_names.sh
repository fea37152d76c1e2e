# The line a build starts with names the revision as it was given, but not a sha twice:
# history and bisect give full shas, which made `revperf: building 6544c3ecb7d3
# (6544c3ecb7d38914fa31f84fc2a3fdeb11d6ce2d): make`.
. "$SRCDIR/tests/cli/lib/common.bash"

make_wchar_repo repo
base=$(git rev-parse base)
expect_exit 1 "$REVPERF" compare "$base" slow -q
expect_grep "^revperf: building ${base:0:12}: echo built" err.txt
expect_grep '^revperf: building [0-9a-f]{12} \(slow\): echo built' err.txt
expect_no_grep "\\(${base:0:7}" err.txt

echo 3 >x && git add x && git commit -qm three
expect_exit 0 "$REVPERF" history -n 1
expect_grep "^revperf: building $(git rev-parse --short=12 HEAD): echo built" err.txt
expect_no_grep 'building [0-9a-f]{12} \([0-9a-f]{40}\)' err.txt
echo ok
