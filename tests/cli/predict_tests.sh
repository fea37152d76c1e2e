# PeASS test selection (METHODS.md section 8): a test suite (`tests` lists the tests,
# `test-command` runs one) is measured test by test, "suite/test"; --select=tests keeps
# the tests that reached, at the last ancestor with dynamic data, a function the commit
# modified or deleted, the tests without data yet, the tests whose call trace at the
# commit (when its data is stored) differs, and, in both modes, the tests whose
# select-paths the commit touches. Real builds, real callgrind runs.
. "$SRCDIR/tests/cli/lib/common.bash"

mkdir proj && cd proj
git init -q . && git config user.email t@example.com && git config user.name test
cat >revperf.ini <<'INI'
[build]
command = mkdir -p build && cc -O1 -g -fno-inline -o build/tests tests.c
[benchmark "unit"]
tests = ./build/tests --list
test-command = ./build/tests --run {test}
runs = 3..4
tolerance = 50%
INI
# Tests run through a table ending in NULL, so that adding one does not change main().
cat >tests.c <<'C'
#include <stdio.h>
#include <string.h>
__attribute__((noinline)) long add(long a, long b) { return a + b; }
__attribute__((noinline)) long mul(long a, long b) { return a * b; }
__attribute__((noinline)) void rev(char *s) {
	size_t n = strlen(s);
	for (size_t i = 0; i < n / 2; i++) { char c = s[i]; s[i] = s[n - 1 - i]; s[n - 1 - i] = c; }
}
static long t_add(void) { long s = 0; for (long i = 0; i < 20000; i++) s = add(s, i); return s; }
static long t_mul(void) { long s = 1; for (long i = 0; i < 20000; i++) s = mul(s, i | 1); return s; }
static long t_rev(void) { char b[] = "revperf"; for (int i = 0; i < 2000; i++) rev(b); return b[0]; }
/* TESTS */
static const struct { const char *name; long (*fn)(void); } tests[] = {
	{ "math.add", t_add }, { "math.mul", t_mul }, { "str.rev", t_rev },
	/* ENTRIES */
	{ NULL, NULL },
};
int main(int argc, char **argv)
{
	for (int i = 0; tests[i].name; i++) {
		if (argc == 2 && !strcmp(argv[1], "--list"))
			puts(tests[i].name);
		else if (argc == 3 && !strcmp(argv[2], tests[i].name))
			printf("%s %ld\n", tests[i].name, tests[i].fn());
	}
	return 0;
}
C
git add . && git commit -qm base && git tag base

expect_exit 0 "$REVPERF" run --dynamic -q
for t in math.add math.mul str.rev; do expect_grep "^unit/$t +[0-9]+ functions reached" out.txt; done
[ "$(wc -l <out.txt)" = 3 ] || fail "three tests expected"
# Without --dynamic: each test once, its status and times, nothing stored.
expect_exit 0 "$REVPERF" run
expect_grep '^unit/math.mul +ok +wall [0-9.]+ s  cpu [0-9.]+ s' out.txt
[ "$(wc -l <out.txt)" = 3 ] || fail "three plain runs expected"

# Only mul() changes: math.mul runs, the other two reached nothing that changed.
sed -i 's/return a \* b;/return a * b + (a \& 1);/' tests.c
git commit -qam 'mul: odd' && git tag mul
expect_exit 0 "$REVPERF" predict --tests -f json
[ "$(json_get out.txt "d['run']")" = "['unit/math.mul']" ] || fail "selected: $(cat out.txt)"
[ "$(json_get out.txt "[b['function'] for b in d['benchmarks'] if b['run']]")" = "['mul']" ] ||
	fail "function"
[ "$(json_get out.txt "[b['reason'] for b in d['benchmarks']]")" = \
	"['not-reached', 'reached-changed', 'not-reached']" ] || fail "reasons"
expect_exit 0 "$REVPERF" predict --tests
expect_grep '^  unit/math.mul +reached changed function mul \(1 changed functions reached\)' out.txt
expect_grep '^  unit/str.rev +reached no changed function' out.txt

# compare --select=tests measures only that test; run --select=tests collects only its data.
# Judged on instructions (ir: exact; mul's `+ (a & 1)` costs 20,000 calls a few more each):
# on wall time (the default primary), 3 or 4 runs of a 1 ms test at a 50% tolerance,
# `not worse` was what the exit code asserted, and a loaded machine once made it worse.
expect_exit 1 "$REVPERF" compare --select=tests base mul -f json --metrics wall,ir --primary ir
[ "$(json_get out.txt "[b['name'] for b in d['benchmarks']]")" = "['unit/math.mul']" ] ||
	fail "compare selected: $(cat out.txt)"
expect_grep 'needs 1 of 3 benchmarks' err.txt
expect_exit 0 "$REVPERF" run --dynamic --select=tests -q
[ "$(wc -l <out.txt)" = 1 ] || fail "one test expected: $(cat out.txt)"
expect_grep '^unit/math.mul ' out.txt

# A new test has no data yet: it runs; the others reached nothing that changed since.
python3 - <<'PY'
src = open("tests.c").read()
src = src.replace("/* TESTS */", "__attribute__((noinline)) size_t len_of(const char *s) { return strlen(s); }\n"
                  "static long t_len(void) { long s = 0; for (int i = 0; i < 1000; i++) s += len_of(\"abc\"); return s; }\n/* TESTS */")
src = src.replace("\t/* ENTRIES */", "\t{ \"str.len\", t_len },\n\t/* ENTRIES */")
open("tests.c", "w").write(src)
PY
git commit -qam 'test len_of' && git tag len
expect_exit 0 "$REVPERF" predict --tests len -f json
[ "$(json_get out.txt "d['run']")" = "['unit/str.len']" ] || fail "selected: $(cat out.txt)"
[ "$(json_get out.txt "d['benchmarks'][3]['reason']")" = no-dynamic-data ] || fail "new test"
# math.mul's closest data is now at mul (collected above), the others' at base.
[ "$(json_get out.txt "d['benchmarks'][1]['ancestor']['depth']")" = 1 ] || fail "mul depth"
[ "$(json_get out.txt "d['benchmarks'][0]['ancestor']['depth']")" = 2 ] || fail "add depth"

# PeASS's trace rule: a test whose branch depends on a data file. The commit that changes
# only the file changes no function, so without data at the commit nothing runs; once
# its dynamic data at the commit is stored, its call trace differs from the ancestor's.
mkdir -p data && echo a >data/mode.txt
python3 - <<'PY'
src = open("tests.c").read()
src = src.replace("/* TESTS */", """__attribute__((noinline)) long mode_a(long x) { return x + 1; }
__attribute__((noinline)) long mode_b(long x) { return x * 3; }
static long t_mode(void) {
	char m = 'a'; FILE *f = fopen("data/mode.txt", "r");
	if (f) { m = (char)fgetc(f); fclose(f); }
	long s = 0; for (int i = 0; i < 500; i++) s = m == 'a' ? mode_a(s) : mode_b(s);
	return s;
}
/* TESTS */""")
src = src.replace("\t/* ENTRIES */", "\t{ \"io.mode\", t_mode },\n\t/* ENTRIES */")
open("tests.c", "w").write(src)
PY
git add data && git commit -qam 'test mode' && git tag mode
expect_exit 0 "$REVPERF" run --dynamic -q mode
echo b >data/mode.txt
git commit -qam 'mode b (data only)' && git tag modeb
expect_exit 0 "$REVPERF" predict --tests modeb -f json
[ "$(json_get out.txt "d['run']")" = "[]" ] || fail "data-only commit without data: $(cat out.txt)"
[ "$(json_get out.txt "set(b['trace'] for b in d['benchmarks'])")" = "{'not-compared'}" ] ||
	fail "traces compared without data at the commit"
expect_exit 0 "$REVPERF" run --dynamic -q modeb
expect_exit 0 "$REVPERF" predict --tests modeb -f json
[ "$(json_get out.txt "d['run']")" = "['unit/io.mode']" ] || fail "trace rule: $(cat out.txt)"
[ "$(json_get out.txt "[(b['reason'], b['function'], b['calls']) for b in d['benchmarks'] if b['run']]")" = \
	"[('trace-changed', 'mode_a', {'ancestor': 500, 'commit': 0})]" ] || fail "trace-changed: $(cat out.txt)"
# The other tests read no data: the same trace, not run.
[ "$(json_get out.txt "[b['trace'] for b in d['benchmarks'] if not b['run']]")" = \
	"['same', 'same', 'same', 'same']" ] || fail "other traces: $(cat out.txt)"
expect_exit 0 "$REVPERF" predict --tests modeb
expect_grep '^  unit/io.mode +call trace changed at mode_a \(500 calls at the ancestor, 0 here\)' out.txt
expect_grep '^  unit/math.add +reached no changed function, same call trace' out.txt
# (on ir, exactly: mode_b's 500 multiplies and the other result printed cost 0.3% more)
expect_exit 1 "$REVPERF" compare --select=tests mode modeb -f json --metrics wall,ir --primary ir
[ "$(json_get out.txt "[b['name'] for b in d['benchmarks']]")" = "['unit/io.mode']" ] ||
	fail "compare --select=tests: $(cat out.txt)"

# Paths the user marks always select (select-paths, relative to the root), in both modes.
mkdir -p conf notes && echo 'n = 1' >conf/params.ini && echo hello >notes/todo.txt
git add conf notes && git commit -qm 'conf and notes' && git tag files
expect_exit 0 "$REVPERF" run --dynamic -q files
sed -i 's|^tests = .*|&\nselect-paths = conf/*.ini, assets/|' revperf.ini
echo 'n = 2' >conf/params.ini && git commit -qm 'params' conf/params.ini && git tag params
echo bye >notes/todo.txt && git commit -qm 'notes' notes/todo.txt && git tag notes
expect_exit 0 "$REVPERF" predict --tests params -f json
[ "$(json_get out.txt "len(d['run'])")" = 5 ] || fail "marked path: $(cat out.txt)"
[ "$(json_get out.txt "set((b['reason'], b['path'], b['glob']) for b in d['benchmarks'])")" = \
	"{('marked-path', 'conf/params.ini', 'conf/*.ini')}" ] || fail "marked-path reason: $(cat out.txt)"
expect_exit 0 "$REVPERF" predict params
expect_grep '^  unit/str.rev +touches marked path conf/params.ini \(select-paths conf/\*.ini\)' out.txt
expect_exit 0 "$REVPERF" predict params -f json
[ "$(json_get out.txt "set(b['reason'] for b in d['benchmarks'])")" = "{'marked-path'}" ] ||
	fail "marked path, perphecy mode: $(cat out.txt)"
# The diff is of i and u: notes's i is files (params has no data), so params's change
# selects notes too; once params has data, notes's own change (notes/ is not marked) does not.
expect_exit 0 "$REVPERF" predict --tests notes -f json
[ "$(json_get out.txt "set((b['reason'], b['path'], b['ancestor']['depth']) for b in d['benchmarks'])")" = \
	"{('marked-path', 'conf/params.ini', 2)}" ] || fail "i..u diff: $(cat out.txt)"
expect_exit 0 "$REVPERF" run --dynamic -q params
expect_exit 0 "$REVPERF" predict --tests notes -f json
[ "$(json_get out.txt "d['run']")" = "[]" ] || fail "unmarked path selected: $(cat out.txt)"
[ "$(json_get out.txt "set(b['ancestor']['depth'] for b in d['benchmarks'])")" = "{1}" ] ||
	fail "notes depth"
expect_exit 0 "$REVPERF" predict notes -f json
[ "$(json_get out.txt "set(b['reason'] for b in d['benchmarks'])")" = "{'no-predictor'}" ] ||
	fail "unmarked path, perphecy mode: $(cat out.txt)"

# A suite whose list fails, or lists nothing, is an input error naming it.
sed -i 's|^tests = .*|tests = ./build/tests --list \&\& false|' revperf.ini
expect_exit 2 "$REVPERF" predict --tests
expect_grep "test suite 'unit': its tests command failed" err.txt
sed -i 's|^tests = .*|tests = true|' revperf.ini
expect_exit 2 "$REVPERF" predict --tests
expect_grep "test suite 'unit': its tests command \(true\) listed no test" err.txt
expect_one_line err.txt
echo ok
