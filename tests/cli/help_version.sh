# help, -h, --version, unknown commands and options, and the manual kept in sync.
. "$SRCDIR/tests/cli/lib/common.bash"

expect_exit 0 "$REVPERF" help
expect_grep '^    compare ' out.txt
expect_grep '^    init ' out.txt
# Each command's line names what it does: profile's its four kinds (--cct, --sample, --io,
# --counters), not the first and the third only.
expect_grep '^    profile .*calling context tree.*sampled on-CPU time.*writes per stack trace.*counters' out.txt
expect_exit 0 "$REVPERF" compare -h
expect_grep '^usage: revperf compare \[options\] (\[--select\[=MODE\]\] )?BASE TARGET' out.txt
expect_grep '--tolerance PCT' out.txt
expect_grep '--cmd-a CMD' out.txt
expect_exit 0 "$REVPERF" help compare
cp out.txt help-compare.txt
expect_exit 0 "$REVPERF" compare --help
cmp -s out.txt help-compare.txt || fail "help compare and compare --help differ"
expect_exit 0 "$REVPERF" --version
expect_grep '^revperf [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{12}(-dirty)?|unknown); ' out.txt
expect_exit 0 "$REVPERF" -V
expect_grep '^revperf [0-9]+\.[0-9]+\.[0-9]+ ' out.txt
expect_exit 2 "$REVPERF" frobnicate
expect_grep "'frobnicate' is not a revperf command" err.txt
expect_one_line err.txt
expect_exit 2 "$REVPERF" compare --no-such-option a b
expect_grep "unknown option '--no-such-option'" err.txt
expect_one_line err.txt
expect_exit 2 "$REVPERF" compare --tolerance
expect_grep "needs a value" err.txt
expect_exit 2 "$REVPERF"
# The manual is generated from the same option tables as -h.
expect_exit 0 "$REVPERF" help --markdown
diff -u "$SRCDIR/docs/manual.md" out.txt >manual.diff ||
	{ cat manual.diff; fail "docs/manual.md is stale: regenerate it with 'revperf help --markdown'"; }
echo ok
