# bindiff on real builds (gcc -O2 -g and -O0 -g): functions whose only change is a
# __LINE__ constant that moved with the source lines, or the compiler's clone suffix of
# their name, are listed apart from the changes of the code (docs/bindiff.md).
. "$SRCDIR/tests/cli/lib/common.bash"

# v1: check() logs with its __LINE__, offset() adds a constant, tally() really changes.
# scale and shift are named as GCC names its clones (asm labels give the names a
# compiler would choose: scale.part.0 of a partial inlining, shift.constprop.0).
cat >v1.c <<'EOF2'
#include <stdio.h>
#define LOG(msg) log_at(__LINE__, msg)
__attribute__((noinline)) void log_at(int line, const char *msg) { fprintf(stderr, "%d: %s\n", line, msg); }
__attribute__((noinline)) int check(int x)
{
	if (x < 0)
		LOG("negative");
	return x * 2;
}
__attribute__((noinline)) int offset(int x) { return x + 100; }
__attribute__((noinline)) int tally(int x) { return x ^ 0x55; }
__attribute__((noinline)) int scale(int x) __asm__("scale.part.0");
__attribute__((noinline)) int scale(int x) { return x * 5 + 3; }
__attribute__((noinline)) int shift(int x) __asm__("shift.constprop.0");
__attribute__((noinline)) int shift(int x) { return x << 3; }
int main(int argc, char **argv)
{
	(void)argv;
	return check(argc) + offset(argc) + tally(argc) + scale(argc) + shift(argc);
}
EOF2
# v2: two lines more above everything (check's __LINE__ moves by 2); offset's constant
# changes by 200 (not the 2 lines it moved: a change of the code); tally changes; scale
# is now a .isra.0 clone with the same body (only its name changed); shift is .isra.0
# with another body (a change of the code, paired by its base name).
{
	echo '/* two lines'
	echo '   more */'
	sed -e 's/x + 100/x + 300/' -e 's/x ^ 0x55/(x ^ 0x55) * (x | 1)/' \
		-e 's/scale.part.0/scale.isra.0/' -e 's/shift.constprop.0/shift.isra.0/' \
		-e 's/x << 3/x << 4/' v1.c
} >v2.c
for o in O0 O2; do
	cc -$o -g v1.c -o v1.$o && cc -$o -g v2.c -o v2.$o || fail "cannot compile at -$o"
done

for o in O0 O2; do
	expect_exit 1 "$REVPERF" bindiff v1.$o v2.$o
	expect_grep '^[0-9]+ modified \(1 only a line-number constant\), 1 renamed \(1 only a clone suffix\), 0 added, 0 deleted, [0-9]+ unchanged$' out.txt
	# The changes of the code, in the table of changes.
	expect_grep '^modified +offset ' out.txt
	expect_grep '^modified +tally ' out.txt
	expect_grep '^modified +shift\.constprop\.0 -> shift\.isra\.0 ' out.txt
	# Apart, after them: what only the preprocessor or the compiler's naming changed.
	expect_grep '^Not changes of the code: only a line-number constant that moved with the source lines \(line \+N\),$' out.txt
	sed -n '/^Not changes of the code/,$p' out.txt >apart.txt
	expect_grep '^line \+2 +check +[0-9]+ +[0-9]+ +\+0\.0% +.*v2\.c:6$' apart.txt
	expect_grep '^clone +scale\.part\.0 -> scale\.isra\.0 ' apart.txt
	[ "$(grep -c '^\(line\|clone\)' apart.txt)" = 2 ] || fail "-$o: more set apart: $(cat apart.txt)"
	sed '/^Not changes of the code/,$d' out.txt >code.txt
	expect_no_grep 'check|scale' code.txt
	# main calls scale by its new name: no change for that (at -O2 main changes anyway:
	# GCC's interprocedural analysis sees into the changed callees).
	[ $o = O2 ] || expect_no_grep ' main ' out.txt

	expect_exit 1 "$REVPERF" bindiff -f json v1.$o v2.$o
	[ "$(json_get out.txt "d['only']")" = "{'line_number': 1, 'clone_suffix': 1}" ] ||
		fail "-$o JSON only: $(json_get out.txt "d['only']")"
	[ "$(json_get out.txt "sorted((f['name'], f['class'], f['only'], f['line_shift']) for f in d['functions'] if f['name'] != 'main')")" = \
		"[('check', 'modified', 'line-number', 2), ('offset', 'modified', None, None), ('scale.isra.0', 'renamed', 'clone-suffix', None), ('shift.isra.0', 'modified', None, None), ('tally', 'modified', None, None)]" ] ||
		fail "-$o JSON functions: $(json_get out.txt "[(f['name'], f['class'], f['only'], f['line_shift']) for f in d['functions']]")"
done

# Without DWARF the lines are unknown: check is a modification like any other.
strip --strip-debug -o v1.nodebug v1.O2 && strip --strip-debug -o v2.nodebug v2.O2 ||
	fail "cannot strip the debug information"
expect_exit 1 "$REVPERF" bindiff v1.nodebug v2.nodebug
expect_grep '^modified +check ' out.txt
expect_grep '^[0-9]+ modified, 1 renamed \(1 only a clone suffix\),' out.txt
echo ok
