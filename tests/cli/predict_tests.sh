# PeASS test selection (METHODS.md section 8): a test suite (`tests` lists the tests,
# `test-command` runs one) is measured test by test, "suite/test"; --select=tests keeps
# the tests that reached, at the last ancestor with dynamic data, a function the commit
# modified or deleted, and the tests without data yet. Real builds, real callgrind runs.
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
expect_exit 0 "$REVPERF" compare --select=tests base mul -f json
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

# A suite whose list fails, or lists nothing, is an input error naming it.
sed -i 's|^tests = .*|tests = ./build/tests --list \&\& false|' revperf.ini
expect_exit 2 "$REVPERF" predict --tests
expect_grep "test suite 'unit': its tests command failed" err.txt
sed -i 's|^tests = .*|tests = true|' revperf.ini
expect_exit 2 "$REVPERF" predict --tests
expect_grep "test suite 'unit': its tests command \(true\) listed no test" err.txt
expect_one_line err.txt
echo ok
