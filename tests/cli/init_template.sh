# revperf init writes a template that parses, and never overwrites; outside a git
# repository it says that compare BASE TARGET cannot work there, and what can.
. "$SRCDIR/tests/cli/lib/common.bash"

expect_exit 0 "$REVPERF" init # the test's directory is in no git repository
expect_grep 'not in a git repository' out.txt
expect_grep '--cmd-a' out.txt
[ -f revperf.ini ] || fail "no revperf.ini"
expect_grep '^\[build\]' revperf.ini
expect_grep '^\[benchmark "example"\]' revperf.ini
expect_grep '^; ' revperf.ini
cp revperf.ini before.ini
expect_exit 2 "$REVPERF" init
expect_grep 'already exists' err.txt
cmp -s revperf.ini before.ini || fail "init modified an existing file"
expect_exit 0 "$REVPERF" init --config other.ini
[ -f other.ini ] || fail "--config ignored"
make_tiny_repo repo
cd repo
rm revperf.ini
expect_exit 0 "$REVPERF" init
expect_grep "then run 'revperf compare BASE TARGET'" out.txt
echo ok
