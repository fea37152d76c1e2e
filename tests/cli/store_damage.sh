# A benchmark that deletes revperf's database or writes garbage into its write-ahead log
# ends with exit 0 no more: the files are checked after each run (the same file, a
# sane size, the log's header) and the database's integrity at the end of the command;
# the error names the file and suggests a state directory outside the project.
. "$SRCDIR/tests/cli/lib/common.bash"

mkdir project && cd project
compare() {
	"$REVPERF" compare -q --cmd-a "$1" --cmd-b true --runs 3..3 --warmup 0 --tolerance 50% \
		"${@:2}"
}

# `rm -f .revperf/revperf.db*` in the benchmark: everything would be gone.
expect_exit 3 compare 'rm -f .revperf/revperf.db .revperf/revperf.db-wal .revperf/revperf.db-shm'
cat err.txt
expect_one_line err.txt
# Found after A's run, or after B's when A's started at its end (lookahead): then the
# message names both.
expect_grep "database $TEST_TMP/project/.revperf/revperf.db was deleted during run 1 of benchmark 'command' \\(side (A\\)|B\\) or the run that started at its end)" err.txt
expect_grep 'with --state-dir DIR' err.txt
expect_grep 'command: not compared' out.txt

# Garbage over the write-ahead log's header: its results would be gone at the next open.
rm -rf .revperf
expect_exit 3 compare 'sh -c "head -c 4096 /dev/urandom | dd of=.revperf/revperf.db-wal conv=notrunc 2>/dev/null"'
cat err.txt
expect_one_line err.txt
expect_grep "its file $TEST_TMP/project/.revperf/revperf.db-wal was overwritten" err.txt
expect_grep 'with --state-dir DIR' err.txt

# The database file replaced by an empty file (same name, another inode). Only once: the
# run after it starts at its exit (lookahead) and would delete the new file again while
# revperf checks.
rm -rf .revperf
expect_exit 3 compare 'sh -c "[ -e replaced ] || { rm .revperf/revperf.db && touch .revperf/revperf.db replaced; }"'
expect_grep 'revperf.db was replaced by another file during run 1 of benchmark' err.txt
rm -f replaced

# Truncated to nothing, as `: > .revperf/revperf.db` does.
rm -rf .revperf
expect_exit 3 compare 'truncate -s 0 .revperf/revperf.db'
expect_grep 'revperf.db was truncated during run 1' err.txt

# With the state outside the project, the same benchmark cannot touch it.
rm -rf .revperf
expect_exit 0 compare 'rm -f .revperf/revperf.db .revperf/revperf.db-wal .revperf/revperf.db-shm' \
	--state-dir "$TEST_TMP/state" --metrics wchar --primary wchar
[ ! -s err.txt ] || { cat err.txt; fail "an error with the state outside the project"; }
python3 -c "import sqlite3; c = sqlite3.connect('$TEST_TMP/state/revperf.db'); assert c.execute('select count(*) from runs').fetchone()[0] == 6; assert c.execute('pragma quick_check').fetchone()[0] == 'ok'" ||
	fail "the runs of the comparison are not all stored"
echo ok
