# revperf writes its own files in .revperf/ without following symbolic links (issue 16,
# item 9; docs/store.md "Symbolic links"): a link planted there, even one committed to the
# repository, cannot redirect a write to another file. Paths the user names (--junit FILE,
# --state-dir DIR) are followed.
. "$SRCDIR/tests/cli/lib/common.bash"

printf 'precious\n' >victim.txt
mkdir elsewhere
VICTIM=$TEST_TMP/victim.txt
one_error() { # FILE: one error line (progress lines about builds may precede it)
	[ "$(grep -c 'error' "$1")" -eq 1 ] || { cat "$1"; fail "expected one error line in $1"; }
}
victim_intact() {
	[ "$(cat "$VICTIM")" = precious ] || fail "the victim was overwritten: $(head -c 200 "$VICTIM")"
	[ -z "$(ls -A "$TEST_TMP/elsewhere")" ] || fail "files appeared elsewhere: $(ls "$TEST_TMP/elsewhere")"
}

mkdir repo && cd repo
git init -q --initial-branch=main . && git config user.email t@example.com &&
	git config user.name test
cat >revperf.ini <<'INI'
[build]
command = true
[benchmark "spin"]
command = true
runs = 3..3
warmup = 0
primary = wchar
INI
git add . && git commit -qm base
# The change under test commits a link where revperf ci writes its JUnit file by default.
mkdir -p .revperf/ci && ln -s "$VICTIM" .revperf/ci/junit.xml
git add .revperf/ci/junit.xml && git commit -qm "plant a link"

expect_exit 2 "$REVPERF" ci -q --base main~1
expect_grep "cannot write the JUnit file .*/\.revperf/ci/junit\.xml: it is a symbolic link, which revperf does not follow in its own directories \\(remove it\\)" err.txt
one_error err.txt
victim_intact
[ -L .revperf/ci/junit.xml ] || fail "the link itself was replaced"

# The summary the same way.
rm .revperf/ci/junit.xml .revperf/ci/summary.md && ln -s "$VICTIM" .revperf/ci/summary.md
expect_exit 2 "$REVPERF" ci -q --base main~1
expect_grep 'summary .*summary\.md: it is a symbolic link' err.txt
victim_intact
rm .revperf/ci/summary.md

# A linked directory inside the state directory: ci/, logs/, report/.
rmdir .revperf/ci && ln -s "$TEST_TMP/elsewhere" .revperf/ci
expect_exit 2 "$REVPERF" ci -q --base main~1
expect_grep "\.revperf/ci is a symbolic link, not a directory: revperf does not follow links inside .*\.revperf; remove it" err.txt
one_error err.txt
victim_intact
rm .revperf/ci

# Paths the user names are the user's choice: followed.
ln -s "$TEST_TMP/elsewhere/mine.xml" my-junit.xml
expect_exit 0 "$REVPERF" ci -q --base main~1 --junit my-junit.xml --summary my-summary.md
[ -s "$TEST_TMP/elsewhere/mine.xml" ] || fail "--junit through the user's own link not written"
rm "$TEST_TMP/elsewhere/mine.xml"
[ -s .revperf/ci/summary.md ] || [ -s my-summary.md ] || fail "no summary"

expect_exit 0 "$REVPERF" report -q
mv .revperf/report .revperf/report.old && ln -s "$TEST_TMP/elsewhere" .revperf/report
expect_exit 2 "$REVPERF" report -q
expect_grep '\.revperf/report is a symbolic link, not a directory' err.txt
victim_intact
rm .revperf/report

# A run's log (logs/runs/<comparison>/<bench>-A.log) planted as a link.
n=$(($(sqlite3 .revperf/revperf.db 'SELECT max(id) FROM comparisons') + 1))
mkdir -p .revperf/logs/runs/$n && ln -s "$VICTIM" .revperf/logs/runs/$n/spin-A.log
expect_exit 3 "$REVPERF" compare -q --fresh main~1 main
expect_grep "spin-A\.log'?: it is a symbolic link" err.txt
victim_intact
rm -r .revperf/logs/runs/$n

mv .revperf/logs .revperf/logs.old && ln -s "$TEST_TMP/elsewhere" .revperf/logs
expect_exit 2 "$REVPERF" compare -q main~1 main
expect_grep '\.revperf/logs is a symbolic link, not a directory' err.txt
one_error err.txt
rm .revperf/logs && mv .revperf/logs.old .revperf/logs

# The database and its write-ahead log.
ln -s "$VICTIM" .revperf/revperf.db-wal.planted
mv .revperf/revperf.db-wal .revperf/wal.old 2>/dev/null || true
mv .revperf/revperf.db-wal.planted .revperf/revperf.db-wal
expect_exit 2 "$REVPERF" compare -q main~1 main
expect_grep 'revperf\.db-wal is a symbolic link; revperf does not open its database through one' err.txt
victim_intact
rm .revperf/revperf.db-wal

# The state directory itself: the default .revperf may not be a link; --state-dir may.
mv .revperf "$TEST_TMP/state" && ln -s "$TEST_TMP/state" .revperf
expect_exit 2 "$REVPERF" compare -q main~1 main
expect_grep '\.revperf is a symbolic link; revperf does not follow it: remove it, or pass --state-dir DIR' err.txt
one_error err.txt
ln -s "$TEST_TMP/state" state-link
expect_exit 0 "$REVPERF" compare -q --state-dir state-link main~1 main
rm .revperf

# A link committed where revperf marks a finished build in the worktree: removed before
# the build, never written through (a guard: this held before the rule too).
ln -s "$VICTIM" .revperf-built && git add .revperf-built && git commit -qm "stamp link"
expect_exit 0 "$REVPERF" run -q --state-dir "$TEST_TMP/fresh-state"
victim_intact
echo ok
