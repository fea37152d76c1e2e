# revperf init writes a template that parses, and never overwrites.
. "$SRCDIR/tests/cli/lib/common.bash"

expect_exit 0 "$REVPERF" init
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
echo ok
