/*
 * Unit tests of the function-level binary diff on real builds that the tests compile:
 * moved code and changed comments are no change; one changed function is exactly that
 * function (plus callers that inlined it, said so); renames; additions and deletions;
 * -O0 and -O2, PIE and non-PIE, shared libraries, object files, stripped files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "binary/bindiff.h"
#include "util/common.h"

#include "bindiff_fixture.h"

/* The program of every test, in pieces so that variants can reorder and change them. */
#define HEAD                                                                                       \
	"#include <stdio.h>\n#include <string.h>\n"                                                \
	"int scale(int x);\nint compute(int n);\ndouble ratio(double x);\n"                        \
	"int legacy(int x);\nstatic int helper(int x);\nstatic int counter;\n"
#define SCALE "int scale(int x) { return x * 3 + 1; }\n"
#define HELPER "static int helper(int x) { counter++; return x ^ 0x55; }\n"
#define COMPUTE                                                                                    \
	"int compute(int n) { int s = 0; for (int i = 0; i < n; i++) s += scale(i) + "             \
	"helper(i); return s; }\n"
#define RATIO "double ratio(double x) { return x * 1.5; }\n"
#define LEGACY "int legacy(int x) { return x * 11 - 4; }\n"
#define MAIN                                                                                       \
	"int main(int argc, char **argv) { printf(\"hello %d %f\\n\", compute(argc * 10), "        \
	"ratio(argc)); puts(\"done\"); return strlen(argv[0]) > 3; }\n"

static const char base_src[] = HEAD SCALE HELPER COMPUTE RATIO LEGACY MAIN;

/* Only comments and whitespace differ, and the functions are in another order. */
#define MOVED_BODY                                                                                 \
	"/* The same program, reformatted: every function moves. */\n" HEAD                        \
	"\n/* a legacy entry point */\nint legacy(int x)\n{\n\treturn x * 11 - 4;\n}\n\n"          \
	"double ratio(double x)\n{\n\treturn x * 1.5; /* the ratio */\n}\n\n"                      \
	"static int helper(int x)\n{\n\tcounter++;\n\n\treturn x ^ 0x55;\n}\n\n"
static const char moved_src[] = MOVED_BODY SCALE COMPUTE "\n\n" MAIN;

/* The moved program with one function changed (and longer). */
static const char changed_src[] =
    MOVED_BODY "int scale(int x) { return (x * 3 + 1) ^ (x >> 2); }\n" COMPUTE MAIN;

/* ratio is now called proportion. */
static const char renamed_src[] =
    "#include <stdio.h>\n#include <string.h>\n"
    "int scale(int x);\nint compute(int n);\ndouble proportion(double x);\n"
    "int legacy(int x);\nstatic int helper(int x);\nstatic int counter;\n" SCALE HELPER COMPUTE
    "double proportion(double x) { return x * 1.5; }\n" LEGACY
    "int main(int argc, char **argv) { printf(\"hello %d %f\\n\", compute(argc * 10), "
    "proportion(argc)); puts(\"done\"); return strlen(argv[0]) > 3; }\n";

/* legacy is gone, fresh is new. */
static const char adddel_src[] =
    HEAD SCALE HELPER COMPUTE RATIO "int fresh(int x) { return x * 13 + 2; }\n" MAIN;

/* The same as a library. */
static const char lib_src[] = HEAD SCALE HELPER COMPUTE RATIO LEGACY
    "int api(int n) { return compute(n) + (int)ratio(n); }\n";
static const char lib_moved_src[] =
    MOVED_BODY SCALE COMPUTE "\nint api(int n)\n{\n\treturn compute(n) + (int)ratio(n);\n}\n";
static const char lib_changed_src[] =
    MOVED_BODY "int scale(int x) { return (x * 3 + 1) ^ (x >> 2); }\n" COMPUTE
	       "int api(int n) { return compute(n) + (int)ratio(n); }\n";

static const char *const exe_flags[] = {
    "-O0 -fPIE -pie",
    "-O2 -fPIE -pie",
    "-O0 -fno-pie -no-pie",
    "-O2 -fno-pie -no-pie",
};

static void dump(const struct bindiff *d)
{
	size_t i;
	for (i = 0; i < d->nr_entries; i++) {
		const struct bindiff_entry *e = &d->entries[i];
		if (e->cls != BINDIFF_UNCHANGED)
			print_message("  %s %s%s%s\n", bindiff_class_name(e->cls),
				      e->old_fn ? e->old_fn->name : "",
				      e->cls == BINDIFF_RENAMED ? " -> " : "",
				      e->old_fn && e->cls != BINDIFF_RENAMED ? ""
									     : e->new_fn->name);
	}
}

/* Builds a and b from two sources with flags (out names "a" and "b") and diffs them. */
static void diff_builds(struct fixture *fx, const char *src_a, const char *src_b, const char *flags,
			struct bindiff *d)
{
	char a[512], b[512];
	fx_build(fx, "a", src_a, flags, "a");
	fx_build(fx, "b", src_b, flags, "b");
	snprintf(a, sizeof(a), "%s", fx_path(fx, "a"));
	snprintf(b, sizeof(b), "%s", fx_path(fx, "b"));
	assert_int_equal(bindiff_files(a, b, 0, d), 0);
	print_message("[%s] %zu modified, %zu renamed, %zu added, %zu deleted, %zu unchanged\n",
		      flags, d->count[BINDIFF_MODIFIED], d->count[BINDIFF_RENAMED],
		      d->count[BINDIFF_ADDED], d->count[BINDIFF_DELETED],
		      d->count[BINDIFF_UNCHANGED]);
	dump(d);
}

static bool inlines(const struct bindiff_entry *e, const char *name)
{
	for (size_t i = 0; i < e->nr_inlines; i++)
		if (!strcmp(e->inlines[i], name))
			return true;
	return false;
}

/* Exactly `name` is modified, plus modified functions that say they inlined it. */
static void assert_only_modified(const struct bindiff *d, const char *name, size_t *inliners)
{
	const struct bindiff_entry *e = bindiff_find(d, name, NULL, true);
	size_t i;
	assert_non_null(e);
	assert_int_equal(e->cls, BINDIFF_MODIFIED);
	*inliners = 0;
	for (i = 0; i < d->nr_entries; i++) {
		const struct bindiff_entry *m = &d->entries[i];
		if (m->cls != BINDIFF_MODIFIED || m == e)
			continue;
		if (!inlines(m, name))
			fail_msg("%s is modified but does not inline %s", m->new_fn->name, name);
		(*inliners)++;
	}
	assert_int_equal(
	    d->count[BINDIFF_ADDED] + d->count[BINDIFF_DELETED] + d->count[BINDIFF_RENAMED], 0);
}

static void test_moved_code_is_unchanged(void **state)
{
	struct fixture fx;
	UNUSED(state);
	fx_init(&fx);
	for (size_t i = 0; i < ARRAY_SIZE(exe_flags); i++) {
		struct bindiff d;
		const struct bindiff_entry *e;
		diff_builds(&fx, base_src, moved_src, exe_flags[i], &d);
		assert_true(bindiff_identical(&d));
		assert_int_equal(d.count[BINDIFF_UNCHANGED], d.nr_entries);
		assert_true(d.nr_entries >= 4);
		/* The premise: the code did move. */
		e = bindiff_find(&d, "legacy", NULL, true);
		assert_non_null(e);
		assert_true(e->old_fn->addr != e->new_fn->addr);
		bindiff_release(&d);
	}
	fx_release(&fx);
}

static void test_one_function_changed(void **state)
{
	struct fixture fx;
	UNUSED(state);
	fx_init(&fx);
	for (size_t i = 0; i < ARRAY_SIZE(exe_flags); i++) {
		struct bindiff d;
		const struct bindiff_entry *e;
		size_t inliners;
		diff_builds(&fx, base_src, changed_src, exe_flags[i], &d);
		assert_only_modified(&d, "scale", &inliners);
		e = bindiff_find(&d, "scale", NULL, true);
		/* The body grew: the change in % is that of the instruction counts. */
		assert_true(e->new_fn->nr_insns > e->old_fn->nr_insns);
		assert_true(
		    fabs(e->change_pct - ((double)e->new_fn->nr_insns - e->old_fn->nr_insns) *
					     100.0 / e->old_fn->nr_insns) < 1e-9);
		if (strstr(exe_flags[i], "-O0")) {
			assert_int_equal(d.count[BINDIFF_MODIFIED], 1);
		} else {
			/* At -O2 compute inlines scale, and DWARF says so. */
			const struct bindiff_entry *c = bindiff_find(&d, "compute", NULL, true);
			assert_int_equal(c->cls, BINDIFF_MODIFIED);
			assert_true(inlines(c, "scale"));
			assert_true(inliners >= 1);
		}
		/* file:line from DWARF, in the new source. */
		assert_non_null(e->new_fn->src_file);
		assert_non_null(strstr(e->new_fn->src_file, "b.c"));
		assert_int_equal(e->new_fn->src_line, line_of(changed_src, "int scale(int x) {"));
		assert_int_equal(e->old_fn->src_line, line_of(base_src, "int scale(int x) {"));
		bindiff_release(&d);
	}
	fx_release(&fx);
}

static void test_renamed_function(void **state)
{
	struct fixture fx;
	UNUSED(state);
	fx_init(&fx);
	for (size_t i = 0; i < 2; i++) {
		struct bindiff d;
		const struct bindiff_entry *e;
		diff_builds(&fx, base_src, renamed_src, exe_flags[i], &d);
		assert_int_equal(d.count[BINDIFF_RENAMED], 1);
		/* main calls it by its new name: still unchanged. */
		assert_int_equal(d.count[BINDIFF_MODIFIED], 0);
		assert_int_equal(d.count[BINDIFF_ADDED], 0);
		assert_int_equal(d.count[BINDIFF_DELETED], 0);
		e = bindiff_find(&d, "proportion", NULL, true);
		assert_non_null(e);
		assert_int_equal(e->cls, BINDIFF_RENAMED);
		assert_string_equal(e->old_fn->name, "ratio");
		assert_ptr_equal(bindiff_find(&d, "ratio", NULL, false), e);
		assert_null(bindiff_find(&d, "ratio", NULL, true));
		bindiff_release(&d);
	}
	fx_release(&fx);
}

static void test_added_and_deleted(void **state)
{
	struct fixture fx;
	UNUSED(state);
	fx_init(&fx);
	for (size_t i = 0; i < 2; i++) {
		struct bindiff d;
		const struct bindiff_entry *e;
		diff_builds(&fx, base_src, adddel_src, exe_flags[i], &d);
		assert_int_equal(d.count[BINDIFF_ADDED], 1);
		assert_int_equal(d.count[BINDIFF_DELETED], 1);
		assert_int_equal(d.count[BINDIFF_MODIFIED] + d.count[BINDIFF_RENAMED], 0);
		e = bindiff_find(&d, "fresh", NULL, true);
		assert_int_equal(e->cls, BINDIFF_ADDED);
		assert_null(e->old_fn);
		assert_true(isnan(e->change_pct));
		e = bindiff_find(&d, "legacy", NULL, false);
		assert_int_equal(e->cls, BINDIFF_DELETED);
		assert_null(e->new_fn);
		/* Entries are sorted by class, then name. */
		for (size_t k = 1; k < d.nr_entries; k++)
			assert_true(d.entries[k - 1].cls <= d.entries[k].cls);
		bindiff_release(&d);
	}
	fx_release(&fx);
}

static void test_shared_library(void **state)
{
	struct fixture fx;
	struct bindiff d;
	size_t inliners;
	UNUSED(state);
	fx_init(&fx);
	diff_builds(&fx, lib_src, lib_moved_src, "-O2 -fPIC -shared", &d);
	assert_true(bindiff_identical(&d));
	assert_int_equal(d.new_file->kind, BINFILE_SHARED);
	bindiff_release(&d);
	diff_builds(&fx, lib_src, lib_changed_src, "-O2 -fPIC -shared", &d);
	assert_only_modified(&d, "scale", &inliners);
	bindiff_release(&d);
	fx_release(&fx);
}

static void test_stripped_library(void **state)
{
	struct fixture fx;
	struct bindiff d;
	size_t inliners;
	UNUSED(state);
	fx_init(&fx);
	fx_build(&fx, "a", lib_src, "-O2 -fPIC -shared", "a.so");
	fx_build(&fx, "b", lib_changed_src, "-O2 -fPIC -shared", "b.so");
	assert_int_equal(fx_sh(&fx, "strip a.so b.so"), 0);
	assert_int_equal(bindiff_files(fx_path(&fx, "a.so"), fx_path(&fx, "b.so"), 0, &d), 0);
	dump(&d);
	assert_true(d.old_file->from_dynsym);
	assert_true(d.new_file->from_dynsym);
	/* Only exported functions: helper (static) is not there. */
	assert_null(bindiff_find(&d, "helper", NULL, true));
	assert_only_modified(&d, "scale", &inliners);
	assert_non_null(bindiff_find(&d, "api", NULL, true));
	bindiff_release(&d);
	fx_release(&fx);
}

static void test_object_files(void **state)
{
	struct fixture fx;
	struct bindiff d;
	size_t inliners;
	UNUSED(state);
	fx_init(&fx);
	diff_builds(&fx, base_src, moved_src, "-O2 -c", &d);
	assert_true(bindiff_identical(&d));
	assert_int_equal(d.new_file->kind, BINFILE_OBJECT);
	bindiff_release(&d);
	diff_builds(&fx, base_src, changed_src, "-O2 -c", &d);
	assert_only_modified(&d, "scale", &inliners);
	/* DWARF of an object file, relocated: the right name and line. */
	assert_int_equal(bindiff_find(&d, "scale", NULL, true)->new_fn->src_line,
			 line_of(changed_src, "int scale(int x) {"));
	bindiff_release(&d);
	diff_builds(&fx, base_src, renamed_src, "-O0 -c", &d);
	assert_int_equal(d.count[BINDIFF_RENAMED], 1);
	assert_int_equal(d.count[BINDIFF_MODIFIED], 0);
	bindiff_release(&d);
	fx_release(&fx);
}

/* Two compilation units each with a static helper: kept apart, matched by unit. */
static void test_same_named_locals(void **state)
{
	struct fixture fx;
	struct bindiff d;
	const struct bindiff_entry *e;
	UNUSED(state);
	fx_init(&fx);
	fx_write(&fx, "one.c",
		 "static int helper(int x) { return x * 7; }\n"
		 "int one(int x) { return helper(x) + 1; }\n");
	fx_write(&fx, "two.c",
		 "static int helper(int x) { return x - 9; }\n"
		 "int two(int x) { return helper(x) * 2; }\n");
	fx_write(&fx, "main.c",
		 "int one(int); int two(int);\n"
		 "int main(int c, char **v) { (void)v; return one(c) + two(c); }\n");
	assert_int_equal(fx_sh(&fx, "cc -O0 -o a main.c one.c two.c"), 0);
	fx_write(&fx, "two.c",
		 "static int helper(int x) { return x - 10; }\n"
		 "int two(int x) { return helper(x) * 2; }\n");
	/* Another link order: everything moves. */
	assert_int_equal(fx_sh(&fx, "cc -O0 -o b two.c main.c one.c"), 0);
	assert_int_equal(bindiff_files(fx_path(&fx, "a"), fx_path(&fx, "b"), 0, &d), 0);
	dump(&d);
	assert_int_equal(d.count[BINDIFF_MODIFIED], 1);
	assert_int_equal(d.count[BINDIFF_ADDED] + d.count[BINDIFF_DELETED], 0);
	e = &d.entries[0];
	assert_string_equal(e->new_fn->name, "helper");
	assert_string_equal(e->new_fn->cu, "two.c");
	assert_true(e->new_fn->dup_name);
	assert_int_equal(bindiff_find(&d, "helper", "one.c", true)->cls, BINDIFF_UNCHANGED);
	assert_int_equal(bindiff_find(&d, "helper", "two.c", false)->cls, BINDIFF_MODIFIED);
	bindiff_release(&d);
	fx_release(&fx);
}

/* A string or a constant that the code loads is part of it; its address is not. */
static void test_constants_and_strings(void **state)
{
	static const char *const flags[] = {"-O2 -fPIE -pie", "-O2 -fno-pie -no-pie", "-O2 -c"};
	struct fixture fx;
	UNUSED(state);
	fx_init(&fx);
	for (size_t i = 0; i < ARRAY_SIZE(flags); i++) {
		struct bindiff d;
		char *src = xstrdup(moved_src);
		char *p = strstr(src, "x * 1.5");
		p[4] = '2'; /* ratio: x * 2.5 */
		p = strstr(src, "\"done\"");
		p[1] = 'D'; /* main: "Done" */
		diff_builds(&fx, base_src, src, flags[i], &d);
		assert_int_equal(d.count[BINDIFF_MODIFIED], 2);
		assert_int_equal(bindiff_find(&d, "ratio", NULL, true)->cls, BINDIFF_MODIFIED);
		assert_int_equal(bindiff_find(&d, "main", NULL, true)->cls, BINDIFF_MODIFIED);
		bindiff_release(&d);
		free(src);
	}
	fx_release(&fx);
}

/*
 * Unnamed read-only data that is no string hashes by its section, also when its first byte
 * is 0. A jump table of offsets relative to itself (GCC's switch tables in PIE code) holds
 * other bytes whenever the code moves; when its first byte was 0 in one build it was taken
 * for the empty string, and the function showed as modified (Lua's str_pack, in a commit
 * that changed only lparser.c). The table's bytes here are those two builds' (x86-64).
 */
static void test_data_starting_with_nul(void **state)
{
#if defined(__x86_64__)
#define TABLE_FN(bytes)                                                                            \
	"int table(int i) { const unsigned char *p;\n"                                             \
	"  __asm__(\"lea 1f(%%rip), %0\\n .pushsection .rodata\\n1: .byte " bytes                  \
	"\\n .popsection\" : \"=r\"(p));\n  return p[i & 3]; }\n"
	static const char a_src[] =
	    TABLE_FN("0x00, 0x93, 0xff, 0xff") "int main(int argc, char **argv) { (void)argv; "
					       "return table(argc); }\n";
	static const char b_src[] =
	    TABLE_FN("0xb0, 0x94, 0xff, 0xff") "int main(int argc, char **argv) { (void)argv; "
					       "return table(argc); }\n";
	/* A real string still counts: "" against "x" is a change. */
	static const char s_src[] = "const char *str(void) { return \"\"; }\n"
				    "int main(void) { return *str(); }\n";
	static const char t_src[] = "const char *str(void) { return \"x\"; }\n"
				    "int main(void) { return *str(); }\n";
	static const char *const flags[] = {"-O2 -fPIE -pie", "-O2 -fno-pie -no-pie", "-O2 -c"};
	struct fixture fx;
	UNUSED(state);
	fx_init(&fx);
	for (size_t i = 0; i < ARRAY_SIZE(flags); i++) {
		struct bindiff d;
		diff_builds(&fx, a_src, b_src, flags[i], &d);
		assert_int_equal(bindiff_find(&d, "table", NULL, true)->cls, BINDIFF_UNCHANGED);
		bindiff_release(&d);
		diff_builds(&fx, s_src, t_src, flags[i], &d);
		assert_int_equal(bindiff_find(&d, "str", NULL, true)->cls, BINDIFF_MODIFIED);
		bindiff_release(&d);
	}
	fx_release(&fx);
#undef TABLE_FN
#else
	UNUSED(state);
	skip();
#endif
}

/* GCC's clone suffixes: the base of the name, which pairs foo.part.0 with foo.isra.0. */
static void test_clone_base(void **state)
{
	static const struct {
		const char *name;
		size_t base;
	} cases[] = {
	    {"foo", 3},
	    {"foo.part.0", 3},
	    {"foo.isra.0", 3},
	    {"foo.constprop.0.isra.0", 3},
	    {"foo.cold", 3},
	    {"foo.part.0.cold", 3},
	    {"foo.lto_priv.0", 3},
	    {"buf.3", 5},	   /* a numbered static, not a clone */
	    {"foo.partial.0", 13}, /* not a clone word */
	    {"foo.part.x", 10},	   /* not a number */
	    {".part.0", 7},	   /* nothing before the suffix */
	    {"a.b.isra.0", 3},	   /* the suffix chain after the last other dot */
	    {"_ZN3fooEv.isra.0", 9},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (bindiff_clone_base(cases[i].name) != cases[i].base)
			fail_msg("%s: base %zu, want %zu", cases[i].name,
				 bindiff_clone_base(cases[i].name), cases[i].base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_moved_code_is_unchanged),
	    cmocka_unit_test(test_one_function_changed),
	    cmocka_unit_test(test_renamed_function),
	    cmocka_unit_test(test_added_and_deleted),
	    cmocka_unit_test(test_shared_library),
	    cmocka_unit_test(test_stripped_library),
	    cmocka_unit_test(test_object_files),
	    cmocka_unit_test(test_same_named_locals),
	    cmocka_unit_test(test_constants_and_strings),
	    cmocka_unit_test(test_data_starting_with_nul),
	    cmocka_unit_test(test_clone_base),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
