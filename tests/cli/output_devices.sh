# A path the user names that is a device (-o /dev/null, /dev/full, /dev/stdout) is written
# through, never removed or replaced: run as root, revperf once removed /dev/null after a
# report it could not write (`cli_report_close` removed the half-written file), and the next
# `>/dev/null` anywhere on the machine created a regular file in its place. Private device
# nodes stand in for /dev's here (mknod needs root: skipped without it).
. "$SRCDIR/tests/cli/lib/common.bash"

mknod full c 1 7 2>/dev/null && mknod null c 1 3 2>/dev/null ||
	{ echo "skip: cannot create device nodes here (not root)"; exit 77; }
is_dev() { [ -c "$1" ] || fail "$1 is no longer a character device: $(ls -l "$1")"; }
printf 'main;a 1\n' >a.folded
printf 'main;a 2\n' >b.folded

# A report that cannot be written (ENOSPC): the error, exit 3, the device left alone.
expect_exit 3 "$REVPERF" diff -o "$PWD/full" a.folded b.folded
expect_grep 'cannot write the report to .*full: No space left on device' err.txt
is_dev full
# Written through a null device: nothing replaces it.
expect_exit 0 "$REVPERF" diff -o "$PWD/null" a.folded b.folded
is_dev null

# Files written whole (a temporary renamed over the path): a device in the path's place
# is written in place, not replaced by the rename. The site's pages are such files.
make_wchar_repo repo
expect_exit 1 "$REVPERF" compare base slow -q
mkdir site && mknod site/index.html c 1 3
expect_exit 0 "$REVPERF" report --out site -q
is_dev site/index.html
[ -s site/style.css ] || [ "$(ls site | wc -l)" -gt 1 ] || fail "the site was not written: $(ls site)"
ls site | grep -q '\.tmp-' && fail "a temporary file was left: $(ls site)"
exit 0
