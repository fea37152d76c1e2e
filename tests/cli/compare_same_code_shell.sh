# The binary diff under a verdict ("./prog: the same code in both builds") takes the
# command's first word also when the shell runs the command (`./prog < in > /dev/null`, as
# docs/configuration.md says of `binary` and as the predictor does); a command starting
# with shell syntax names no program (`binary =` does). Judged on wchar (exact): with wall
# as primary, 2 + 2 runs of 2 ms on a loaded machine once came out `worse` 1.36 [1.18,
# 1.57] and failed the test's exit 0 (CI of 2026-11-27).
. "$SRCDIR/tests/cli/lib/common.bash"

git init -q proj && cd proj && git config user.email t@example.com && git config user.name test
cat >prog.c <<'C'
#include <stdio.h>
int main(void)
{
	int c;
	unsigned long n = 0;
	while ((c = getchar()) != EOF)
		n += (unsigned long)c;
	printf("%lu\n", n);
	return 0;
}
C
printf 'hello\n' >in.txt
cat >revperf.ini <<'INI'
[build]
command = cc -O1 -o prog prog.c
[benchmark "redirected"]
command = ./prog < in.txt > /dev/null
metrics = wchar
primary = wchar
runs = 2..2
[benchmark "shell-first"]
command = cd . && ./prog < in.txt
metrics = wchar
primary = wchar
runs = 2..2
INI
git add -A && git commit -qm base && git tag base
echo notes >README && git add README && git commit -qm docs

expect_exit 0 "$REVPERF" compare base HEAD -q -f json
python3 - out.txt <<'PY' || fail "same code: $(cat out.txt)"
import json, sys
b = {x["name"]: x for x in json.load(open(sys.argv[1]))["benchmarks"]}
sc = b["redirected"]["same_code"]
assert sc and sc["identical"] is True and sc["program"] == "./prog", sc
assert b["shell-first"]["same_code"] is None, b["shell-first"]["same_code"]
PY
expect_exit 0 "$REVPERF" show base HEAD
expect_grep '^  \./prog: the same code in both builds' out.txt

# A stripped program: no binary diff, said once as a warning (compare goes on and exits 0),
# not once per benchmark that runs it as an error.
sed -i 's/^command = cc -O1 -o prog prog.c$/command = cc -O1 -s -o prog prog.c/' revperf.ini
cat >>revperf.ini <<'INI'
[benchmark "again"]
command = ./prog < in.txt
metrics = wchar
runs = 2..2
INI
expect_exit 0 "$REVPERF" compare base HEAD -q
[ "$(grep -c 'stripped, and it exports no functions' err.txt)" = 1 ] ||
	fail "the stripped program is not said once: $(cat err.txt)"
expect_grep '^revperf: warning: .*/prog: stripped, and it exports no functions: no binary diff of the two builds; rebuild it without stripping$' err.txt
expect_no_grep 'error:' err.txt
echo ok
