# A build that fails prints, under its log's path, the first error line when the last
# lines (make's "Waiting for unfinished jobs", "Leaving directory", ...) come after it: the
# jq trial (bench/RESULTS.md) saw only make's lines and the end of a compiler note, not
# "src/jv_aux.c:730:1: error: unknown type name 'this'". An echoed -Werror is no error
# line; a log whose error is in its last lines prints them only.
. "$SRCDIR/tests/cli/lib/common.bash"

make_tiny_repo repo
cd repo
printf '[build]\ncommand = sh ./build.sh\n[benchmark "spin"]\ncommand = sh ./work.sh\n' >revperf.ini
echo 'echo built' >build.sh
git add . && git commit -qm "builds" && git tag good
cat >build.sh <<'SH'
echo "gcc -Werror -c src/main.c"
echo "src/lib.c:730:1: error: unknown type name 'this'"
echo "  730 | this is not C;"
for i in 1 2 3 4 5 6 7 8 9; do echo "make[2]: Leaving directory '/x/$i'"; done
exit 2
SH
git commit -qam "the build breaks"
expect_exit 2 "$REVPERF" compare good HEAD
expect_grep '^revperf: error: build of [0-9a-f]{12} \(HEAD\) failed: exited with status 2; see .*\.log$' err.txt
expect_grep '^    the first error, line 2 of the log:$' err.txt
expect_grep "^    \\| src/lib\\.c:730:1: error: unknown type name 'this'\$" err.txt
expect_grep '^    its last lines:$' err.txt
expect_grep "^    \\| make\\[2\\]: Leaving directory '/x/9'\$" err.txt
expect_no_grep 'Werror' err.txt
[ "$(grep -c '^    | ' err.txt)" = 9 ] || fail "not the first error and 8 last lines: $(cat err.txt)"

# The error among the last lines: those lines only, no first-error heading.
printf 'echo "a.c:1:1: error: boom"\necho "make: *** [all] Error 1"\nexit 2\n' >build.sh
git commit -qam "broken again"
expect_exit 2 "$REVPERF" compare good HEAD
expect_grep '^    \| a\.c:1:1: error: boom$' err.txt
expect_no_grep 'the first error' err.txt
[ "$(grep -c '^    | ' err.txt)" = 2 ] || fail "not the 2 lines of the log: $(cat err.txt)"
echo ok
