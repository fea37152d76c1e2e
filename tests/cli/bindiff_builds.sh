# bindiff on real builds: text and JSON, exit 0 identical / 1 different, -a, a stripped library.
. "$SRCDIR/tests/cli/lib/common.bash"

cat >a.c <<'EOF'
#include <stdio.h>
int scale(int x) { return x * 3 + 1; }
int compute(int n) { int s = 0; for (int i = 0; i < n; i++) s += scale(i); return s; }
double ratio(double x) { return x * 1.5; }
int legacy(int x) { return x * 11 - 4; }
int main(int argc, char **argv) { (void)argv; printf("%d %f\n", compute(argc), ratio(argc)); return 0; }
EOF
# Comments, whitespace and order only.
cat >b.c <<'EOF'
#include <stdio.h>
/* reformatted */
int legacy(int x)
{
	return x * 11 - 4;
}
double ratio(double x) { return x * 1.5; }
int scale(int x) { return x * 3 + 1; }

int compute(int n) { int s = 0; for (int i = 0; i < n; i++) s += scale(i); return s; }
int main(int argc, char **argv) { (void)argv; printf("%d %f\n", compute(argc), ratio(argc)); return 0; }
EOF
# scale modified, ratio renamed, legacy deleted, fresh added.
cat >c.c <<'EOF'
#include <stdio.h>
int fresh(int x) { return x * 13 + 2; }
int scale(int x) { return (x * 3 + 1) ^ (x >> 2); }
int compute(int n) { int s = 0; for (int i = 0; i < n; i++) s += scale(i); return s; }
double proportion(double x) { return x * 1.5; }
int main(int argc, char **argv) { (void)argv; printf("%d %f\n", compute(argc), proportion(argc)); return 0; }
EOF
for v in a b c; do cc -O0 -g $v.c -o $v.O0 && cc -O2 -g $v.c -o $v.O2 || fail "cannot compile $v.c"; done

expect_exit 0 "$REVPERF" bindiff a.O0 b.O0
expect_grep '^old: a.O0 \(x86-64 pie, [0-9]+ functions\)$' out.txt
expect_grep '^0 modified, 0 renamed, 0 added, 0 deleted, [0-9]+ unchanged$' out.txt
expect_grep '^identical' out.txt
[ -s err.txt ] && fail "unexpected stderr: $(cat err.txt)"

expect_exit 1 "$REVPERF" bindiff a.O0 c.O0
expect_grep '^1 modified, 1 renamed, 1 added, 1 deleted, [0-9]+ unchanged$' out.txt
expect_grep '^class +function +insns old +insns new +change +source$' out.txt
expect_grep '^modified +scale +[0-9]+ +[0-9]+ +\+[0-9.]+% +.*c\.c:3$' out.txt
expect_grep '^renamed +ratio -> proportion ' out.txt
expect_grep '^added +fresh +- +[0-9]+ +- +.*c\.c:2$' out.txt
expect_grep '^deleted +legacy +[0-9]+ +- +- +.*a\.c:5$' out.txt
expect_no_grep '^unchanged' out.txt
expect_no_grep 'compute' out.txt

# -O2: compute inlines scale, and says so.
expect_exit 1 "$REVPERF" bindiff a.O2 c.O2
expect_grep '^modified +compute .*\(inlines modified scale\)$' out.txt

# --all lists unchanged functions too.
expect_exit 0 "$REVPERF" bindiff --all a.O2 b.O2
expect_grep '^unchanged +compute ' out.txt

expect_exit 1 "$REVPERF" bindiff --format json a.O0 c.O0
[ "$(json_get out.txt "d['summary']")" = "{'modified': 1, 'renamed': 1, 'added': 1, 'deleted': 1, 'unchanged': $(json_get out.txt "d['summary']['unchanged']")}" ] ||
	fail "summary: $(json_get out.txt "d['summary']")"
[ "$(json_get out.txt "(d['exit_code'], d['identical'], d['old']['type'], d['old']['symbols'])")" = "(1, False, 'pie', 'symtab')" ] ||
	fail "header fields"
[ "$(json_get out.txt "[(f['class'], f['name']) for f in d['functions']]")" = \
	"[('modified', 'scale'), ('renamed', 'proportion'), ('added', 'fresh'), ('deleted', 'legacy')]" ] ||
	fail "functions: $(json_get out.txt "[(f['class'], f['name']) for f in d['functions']]")"
[ "$(json_get out.txt "[f['old']['name'] for f in d['functions'] if f['class'] == 'renamed']")" = "['ratio']" ] ||
	fail "renamed old name"
[ "$(json_get out.txt "[f['new']['line'] for f in d['functions'] if f['name'] == 'scale']")" = "[3]" ] ||
	fail "line of scale"
expect_exit 0 "$REVPERF" bindiff -f json a.O2 b.O2
[ "$(json_get out.txt "(d['functions'], d['identical'])")" = "([], True)" ] || fail "identical json"

# A stripped shared library: exported functions only, with a warning.
cc -O2 -fPIC -shared a.c -o liba.so && cc -O2 -fPIC -shared c.c -o libc.so && strip liba.so libc.so ||
	fail "cannot build the libraries"
expect_exit 1 "$REVPERF" bindiff liba.so libc.so
expect_grep '^revperf: warning: liba.so has no .symtab \(stripped\); using .dynsym' err.txt
expect_grep 'shared, [0-9]+ functions, exported only: stripped' out.txt
expect_grep '^modified +scale ' out.txt

expect_exit 0 "$REVPERF" bindiff -h
expect_grep '^usage: revperf bindiff \[options\] OLD NEW' out.txt
echo ok
