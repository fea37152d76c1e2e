# The CCT runtime in a program that runs with privileges its user does not have
# (set-user-ID, set-group-ID): REVPERF_CCT_OUT would let any user create files anywhere with
# those privileges, so nothing is written (not there, not in the current directory), the
# program runs as it would without the runtime, and stderr says why (docs/cct-format.md).
# Needs root, to give a program to another user; skipped (exit 77) where that cannot work.
. "$SRCDIR/tests/cli/lib/common.bash"
RT="$BUILDDIR/runtime/librevperf_cct.so"
[ -f "$RT" ] || fail "no runtime at $RT"
skip() { echo "skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root: cannot make a program set-user-ID to another user"
nobody_uid=$(id -u nobody 2>/dev/null) || skip "no user 'nobody' to own the program"
nobody_gid=$(id -g nobody)
command -v cc >/dev/null || skip "no C compiler"

# Everything the program and the dynamic loader open as 'nobody' must be readable by it.
chmod 755 "$TEST_TMP"
mkdir lib out cwd
chmod 1777 out cwd
cp "$RT" lib/
cat >prog.c <<'C'
#include <stdio.h>
#include <unistd.h>
static int twice(int x) { return 2 * x; }
int main(void)
{
	printf("euid %d egid %d twice %d\n", (int)geteuid(), (int)getegid(), twice(21));
	return 0;
}
C
cc -O0 -finstrument-functions prog.c -o prog -L lib -lrevperf_cct -Wl,-rpath,"$TEST_TMP/lib" ||
	fail "cannot build the program with the runtime linked in"

# run: the program from cwd/ with REVPERF_CCT_OUT=out/ (or unset with NO_OUT=1).
run() {
	rm -f out/* cwd/*
	local got=0
	(cd cwd && if [ -n "${NO_OUT:-}" ]; then ../prog; else REVPERF_CCT_OUT="$TEST_TMP/out" ../prog; fi) \
		>stdout.txt 2>stderr.txt || got=$?
	[ $got = 0 ] || { cat stderr.txt; fail "$1: the program exited $got"; }
	expect_grep 'twice 42$' stdout.txt
}

# Unprivileged, the profile is written: the check below can see a file.
run "unprivileged"
ls out/*.cct >/dev/null 2>&1 || fail "unprivileged: no profile written"
[ ! -s stderr.txt ] || { cat stderr.txt; fail "unprivileged: the runtime printed something"; }

# Set-user-ID to nobody, started by root.
chown nobody prog && chmod 4755 prog
run "set-user-ID"
grep -q "^euid $nobody_uid " stdout.txt ||
	skip "the set-user-ID bit has no effect here (a nosuid mount?): $(cat stdout.txt)"
[ -z "$(ls -A out)" ] || { ls -l out; fail "set-user-ID: a file was written at REVPERF_CCT_OUT"; }
[ -z "$(ls -A cwd)" ] || { ls -l cwd; fail "set-user-ID: a file was written in the current directory"; }
expect_grep '^revperf-cct: this program runs with privileges its user does not have' stderr.txt
expect_one_line stderr.txt
NO_OUT=1 run "set-user-ID, no REVPERF_CCT_OUT"
[ -z "$(ls -A cwd)" ] || { ls -l cwd; fail "set-user-ID: a file was written in the current directory"; }

# Set-group-ID to nobody's group.
chown root:"$nobody_gid" prog && chmod 2755 prog
run "set-group-ID"
grep -q " egid $nobody_gid " stdout.txt || skip "the set-group-ID bit has no effect here: $(cat stdout.txt)"
[ -z "$(ls -A out)" ] || { ls -l out; fail "set-group-ID: a file was written at REVPERF_CCT_OUT"; }
expect_grep '^revperf-cct: this program runs with privileges' stderr.txt
echo ok
