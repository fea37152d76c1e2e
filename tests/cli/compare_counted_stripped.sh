# A counted metric (ir) of a stripped program: the binary diff's warning is said once, and
# no error. Before, reading the PLT names of each side's callgrind profile printed
# "error: .../prog: stripped, and it exports no functions: nothing to compare" once per
# build under a comparison that went on and exited 0 (zlib trial: `sleep` as a benchmark).
. "$SRCDIR/tests/cli/lib/common.bash"
command -v valgrind >/dev/null || fail "valgrind is needed (make test installs it)"

git init -q proj && cd proj && git config user.email t@example.com && git config user.name test
cat >prog.c <<'C'
#include <stdio.h>
int main(void)
{
	unsigned long n = 0;
	for (int i = 0; i < 100000; i++)
		n += (unsigned long)i;
	printf("%lu\n", n);
	return 0;
}
C
cat >revperf.ini <<'INI'
[build]
command = cc -O1 -s -o prog prog.c
[benchmark "p"]
command = ./prog
metrics = ir
primary = ir
runs = 2..2
INI
git add -A && git commit -qm base && git tag base
echo notes >README && git add README && git commit -qm docs

expect_exit 0 "$REVPERF" compare base HEAD
expect_grep '^  ir \* +equal' out.txt
expect_no_grep 'error' err.txt
[ "$(grep -c 'stripped, and it exports no functions' err.txt)" = 1 ] ||
	fail "the stripped program is not said once: $(cat err.txt)"
echo ok
