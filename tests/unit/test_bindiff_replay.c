/*
 * Unit tests of the reuse of decodings (src/binary/binfile_decode.h): an instruction whose
 * shape was decoded before, and a function of the new build whose bytes equal those of its
 * old namesake outside address fields, are hashed from the earlier decoding rather than
 * disassembled again. The hashes and instruction counts must be exactly those of every
 * instruction decoded by Capstone (binfile_load() with BINFILE_NO_REUSE), for PIE and
 * non-PIE executables, -O0 and -O2, shared libraries and object files, and a change in an
 * immediate operand or a loaded constant must still be seen.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "binary/bindiff.h"
#include "util/common.h"

#include "bindiff_fixture.h"

/*
 * Calls forwards and backwards, a jump table, strings, a double constant, data symbols,
 * a large immediate and an absolute address (non-PIE): every kind of field.
 */
#define PROG_HEAD                                                                                  \
	"#include <stdio.h>\n#include <string.h>\n"                                                \
	"int table[64];\nstatic int counter;\nconst char *names[] = {\"zero\", \"one\"};\n"
#define PROG_FUNCS                                                                                 \
	"__attribute__((noinline)) int later(int x);\n"                                            \
	"__attribute__((noinline)) int early(int x) { return later(x) + table[x & 63]; }\n"        \
	"__attribute__((noinline)) int big(int x) { return x * 1234567 + 7654321; }\n"             \
	"__attribute__((noinline)) double scaled(double x) { return x * 1.25 + 0.5; }\n"           \
	"__attribute__((noinline)) int pick(int x) {\n"                                            \
	"  switch (x) { case 0: return early(x); case 1: return 17; case 2: return x * 9;\n"       \
	"  case 3: return (int)strlen(names[x & 1]); case 4: return big(x);\n"                     \
	"  case 5: return counter++; default: return -x; } }\n"                                    \
	"__attribute__((noinline)) int *where(int x) { return &table[x & 7]; }\n"                  \
	"__attribute__((noinline)) int later(int x) { counter += x; return x > 3 ? pick(x - 1) : " \
	"x; }\n"
#define PROG_MAIN                                                                                  \
	"int main(int argc, char **argv) { (void)argv; printf(\"%d %f %p\\n\", pick(argc),\n"      \
	"  scaled(argc), (void *)where(argc)); puts(\"done\"); return 0; }\n"

static const char prog_a[] = PROG_HEAD PROG_FUNCS PROG_MAIN;

/*
 * The same functions, moved: a new function first shifts the code, a new array shifts the
 * data, and a new string shifts the read-only data.
 */
static const char prog_moved[] =
    PROG_HEAD "int pad_data[300] = {1};\n"
	      "__attribute__((noinline)) int first(int x) { puts(\"a new string first\");\n"
	      "  return x * x * x + pad_data[x & 255]; }\n" PROG_FUNCS
	      "int main(int argc, char **argv) { (void)argv; printf(\"%d %f %p\\n\", pick(argc),\n"
	      "  scaled(argc), (void *)where(argc)); puts(\"done\"); return first(argc) & 0; }\n";

static const char *const flags[] = {
    "-O0 -fPIE -pie",	    "-O2 -fPIE -pie",	 "-O0 -fno-pie -no-pie",
    "-O2 -fno-pie -no-pie", "-O2 -fPIC -shared", "-O2 -c",
};

/* Every function of the diff's file hashes as when Capstone decodes every instruction. */
static void assert_same_hashes(const struct binfile *in_diff, const char *path)
{
	struct binfile *alone;
	size_t i;
	assert_int_equal(binfile_load(path, BINFILE_NO_DWARF | BINFILE_NO_REUSE, &alone), 0);
	assert_int_equal(alone->nr_funcs, in_diff->nr_funcs);
	for (i = 0; i < alone->nr_funcs; i++) {
		const struct binfunc *x = &alone->funcs[i], *y = &in_diff->funcs[i];
		assert_string_equal(x->name, y->name);
		if (x->hash != y->hash || x->nr_insns != y->nr_insns)
			fail_msg("%s: %s hashes as %016llx (%u insns) decoded, %016llx (%u) in "
				 "the diff",
				 path, x->name, (unsigned long long)x->hash, x->nr_insns,
				 (unsigned long long)y->hash, y->nr_insns);
	}
	binfile_free(alone);
}

/* The diff without any reuse of decodings: the same classes, and nothing reused. */
static void assert_same_classes_without_reuse(const struct bindiff *d, const char *a, const char *b)
{
	struct bindiff plain;
	size_t k;
	assert_int_equal(bindiff_files(a, b, BINFILE_NO_DWARF | BINFILE_NO_REUSE, &plain), 0);
	assert_int_equal(plain.new_file->nr_reused, 0);
	for (k = 0; k < BINDIFF_NR_CLASSES; k++)
		assert_int_equal(plain.count[k], d->count[k]);
	bindiff_release(&plain);
}

/* Builds both sources with f and diffs them (no DWARF: the hashes do not depend on it). */
static void diff_pair(struct fixture *fx, const char *src_a, const char *src_b, const char *f,
		      struct bindiff *d)
{
	char a[512], b[512];
	fx_build(fx, "a", src_a, f, "a");
	fx_build(fx, "b", src_b, f, "b");
	snprintf(a, sizeof(a), "%s", fx_path(fx, "a"));
	snprintf(b, sizeof(b), "%s", fx_path(fx, "b"));
	assert_int_equal(bindiff_files(a, b, BINFILE_NO_DWARF, d), 0);
	print_message("[%s] %zu modified, %zu added, %zu unchanged; %zu of %zu reused\n", f,
		      d->count[BINDIFF_MODIFIED], d->count[BINDIFF_ADDED],
		      d->count[BINDIFF_UNCHANGED], d->new_file->nr_reused, d->new_file->nr_funcs);
	assert_same_hashes(d->old_file, a);
	assert_same_hashes(d->new_file, b);
	assert_same_classes_without_reuse(d, a, b);
}

static const char *const moved_funcs[] = {"early", "big", "scaled", "pick", "where", "later"};

static void test_moved_functions_reuse_decoding(void **state)
{
	struct fixture fx;
	UNUSED(state);
	fx_init(&fx);
	for (size_t i = 0; i < ARRAY_SIZE(flags); i++) {
		struct bindiff d;
		size_t reused_named = 0;
		diff_pair(&fx, prog_a, prog_moved, flags[i], &d);
		for (size_t k = 0; k < ARRAY_SIZE(moved_funcs); k++) {
			const struct bindiff_entry *e =
			    bindiff_find(&d, moved_funcs[k], NULL, true);
			assert_non_null(e);
			if (e->cls != BINDIFF_UNCHANGED)
				fail_msg("[%s] %s is %s", flags[i], moved_funcs[k],
					 bindiff_class_name(e->cls));
			/* The premise: it moved (object files: the section layout is kept). */
			if (!strstr(flags[i], "-c"))
				assert_true(e->old_fn->addr != e->new_fn->addr);
			reused_named += e->old_fn->size == e->new_fn->size;
		}
		assert_int_equal(bindiff_find(&d, "first", NULL, true)->cls, BINDIFF_ADDED);
		/* The moved functions of the same size were hashed without Capstone. */
		assert_true(reused_named > 0);
		assert_true(d.new_file->nr_reused >= reused_named);
		bindiff_release(&d);
	}
	fx_release(&fx);
}

/* Same size, same shape, other values: an immediate, a constant, a string. */
static void test_changed_values_are_seen(void **state)
{
	static const struct {
		const char *from, *to, *func;
	} edits[] = {
	    {"x * 1234567 + 7654321", "x * 1234567 + 7654322", "big"},
	    {"x * 1.25 + 0.5", "x * 1.75 + 0.5", "scaled"},
	    {"\"zero\", \"one\"", "\"zero\", \"One\"", NULL}, /* data: no function changes */
	    {"return 17;", "return 18;", "pick"},
	};
	struct fixture fx;
	UNUSED(state);
	fx_init(&fx);
	for (size_t i = 0; i < ARRAY_SIZE(flags); i++) {
		for (size_t k = 0; k < ARRAY_SIZE(edits); k++) {
			struct bindiff d;
			struct strbuf src = STRBUF_INIT;
			const char *p = strstr(prog_a, edits[k].from);
			const struct bindiff_entry *e;
			assert_non_null(p);
			strbuf_add(&src, prog_a, (size_t)(p - prog_a));
			strbuf_addstr(&src, edits[k].to);
			strbuf_addstr(&src, p + strlen(edits[k].from));
			diff_pair(&fx, prog_a, src.buf, flags[i], &d);
			if (edits[k].func) {
				e = bindiff_find(&d, edits[k].func, NULL, true);
				assert_non_null(e);
				if (e->cls != BINDIFF_MODIFIED)
					fail_msg("[%s] %s: %s is %s", flags[i], edits[k].to,
						 edits[k].func, bindiff_class_name(e->cls));
			} else {
				/* Limits of docs/bindiff.md: data is not diffed. */
				assert_true(bindiff_identical(&d));
			}
			bindiff_release(&d);
			strbuf_release(&src);
		}
	}
	fx_release(&fx);
}

/* n functions calling their predecessor, each with a string and a constant. */
static void many_functions(struct strbuf *sb, int n, bool moved)
{
	strbuf_addstr(sb, "#include <stdio.h>\nint total;\n");
	if (moved)
		strbuf_addstr(sb,
			      "int pad[100] = {1};\nint first(int x) { return x + pad[x & 63] + "
			      "puts(\"shift\"); }\n");
	strbuf_addstr(sb, "#define F __attribute__((noinline)) int\nF f0(int x) { return x; }\n");
	for (int i = 1; i < n; i++)
		strbuf_addf(sb,
			    "F f%d(int x) { total += %d; if (x > %d) puts(\"f%d\"); "
			    "return f%d(x ^ %d) + (int)(x * %d.5); }\n",
			    i, i, i * 3, i, i - 1, i, i % 7 == 3 && moved ? i + 1 : i);
	strbuf_addf(sb, "int main(int c, char **v) { (void)v; return f%d(c) & 1; }\n", n - 1);
}

/* Enough functions for several threads: the same hashes, and only the edits differ. */
static void test_many_functions_in_threads(void **state)
{
	struct fixture fx;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct bindiff d;
	const int n = 400;
	UNUSED(state);
	fx_init(&fx);
	many_functions(&a, n, false);
	many_functions(&b, n, true);
	diff_pair(&fx, a.buf, b.buf, "-O2 -fPIE -pie", &d);
	/* f3, f10, f17, ...: (n + 3) / 7 of them changed a constant; main calls the same. */
	assert_int_equal(d.count[BINDIFF_MODIFIED], (size_t)(n + 3) / 7);
	assert_int_equal(d.count[BINDIFF_ADDED], 1);
	assert_true(d.new_file->nr_reused >= (size_t)n / 2);
	bindiff_release(&d);
	strbuf_release(&a);
	strbuf_release(&b);
	fx_release(&fx);
}

/* With DWARF, read in parallel with the other file's: file:line still right. */
static void test_dwarf_with_reuse(void **state)
{
	struct fixture fx;
	struct bindiff d;
	const struct bindiff_entry *e;
	UNUSED(state);
	fx_init(&fx);
	fx_build(&fx, "a", prog_a, "-O2", "a");
	fx_build(&fx, "b", prog_moved, "-O2", "b");
	assert_int_equal(bindiff_files(fx_path(&fx, "a"), fx_path(&fx, "b"), 0, &d), 0);
	assert_true(d.new_file->has_dwarf);
	assert_true(d.new_file->nr_reused > 0);
	e = bindiff_find(&d, "big", NULL, true);
	assert_int_equal(e->cls, BINDIFF_UNCHANGED);
	assert_int_equal(e->old_fn->src_line, line_of(prog_a, "int big("));
	assert_int_equal(e->new_fn->src_line, line_of(prog_moved, "int big("));
	assert_true(e->new_fn->src_line > e->old_fn->src_line);
	bindiff_release(&d);
	fx_release(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_moved_functions_reuse_decoding),
	    cmocka_unit_test(test_changed_values_are_seen),
	    cmocka_unit_test(test_many_functions_in_threads),
	    cmocka_unit_test(test_dwarf_with_reuse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
