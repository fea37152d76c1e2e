# A command that fails before doing anything leaves nothing behind: without revperf.ini
# (or with a --config that does not exist), compare, history, bisect and ci say so in one
# line, exit 2, and create no state directory and no database.
. "$SRCDIR/tests/cli/lib/common.bash"

mkdir repo && cd repo
git init -q . && git config user.email t@example.com && git config user.name test
echo a >a.txt && git add . && git commit -qm one && echo b >a.txt && git commit -qam two

for cmd in "compare HEAD~1 HEAD" "history -n 1" "bisect --bench x HEAD~1 HEAD" "ci --base HEAD~1"; do
	expect_exit 2 "$REVPERF" $cmd -q
	expect_one_line err.txt
	expect_grep 'revperf\.ini.*revperf init' err.txt
	[ ! -e .revperf ] || fail "$cmd left $(find .revperf | head -5)"
done

expect_exit 2 "$REVPERF" compare HEAD~1 HEAD -q --config nowhere.ini
expect_one_line err.txt
expect_grep 'nowhere\.ini.*--config' err.txt
[ ! -e .revperf ] || fail "--config nowhere.ini left .revperf"

# --state-dir elsewhere: not created either.
expect_exit 2 "$REVPERF" history -n 1 -q --state-dir "$TEST_TMP/state"
[ ! -e "$TEST_TMP/state" ] || fail "--state-dir created"
echo ok
