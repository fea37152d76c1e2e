/*
 * Unit tests of the fingerprint of a build's programs (binary/fingerprint.h) on real builds
 * that the tests compile: what the loader maps counts (a changed string, a changed
 * library), what no benchmark runs does not (debug information, object files, scripts,
 * .git); and the one-line description of a change.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "binary/fingerprint.h"
#include "util/common.h"

#include "bindiff_fixture.h"

#define PROG "#include <stdio.h>\nint main(void) { puts(STAMP); return 0; }\n"
#define LIB "int lib_value(void) { return VALUE; }\n"

/* The fingerprint of the fixture's directory (a copy the caller frees). */
static char *fp_of(struct fixture *fx)
{
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(fingerprint_tree(fx->dir, &sb), 0);
	return strbuf_detach(&sb);
}

static void test_what_counts(void **state)
{
	struct fixture fx;
	char *plain, *debug, *other, *with_lib, *lib_changed;
	UNUSED(state);
	fx_init(&fx);
	fx_write(&fx, "prog.c", PROG);
	fx_write(&fx, "lib.c", LIB);
	assert_int_equal(fx_sh(&fx, "cc -O1 -DSTAMP='\"a\"' -o prog prog.c"), 0);
	/* not run by a benchmark: an object file, a script, the private repository */
	assert_int_equal(fx_sh(&fx, "cc -O1 -DVALUE=1 -c -o lib.o lib.c && "
				    "printf '#!/bin/sh\\n./prog\\n' >run.sh && mkdir -p .git && "
				    "cp prog .git/prog-copy"),
			 0);
	plain = fp_of(&fx);
	assert_int_equal(strlen(plain), 17 + strlen("prog") + 1);
	assert_non_null(strstr(plain, " prog\n"));

	/* the same code with debug information (another build-id note): the same program */
	fx_build(&fx, "prog", PROG, "-O1 -DSTAMP='\"a\"'", "prog"); /* cc -g */
	debug = fp_of(&fx);
	assert_string_equal(plain, debug);

	/* another string compiled in (a date, a path, CFLAGS): another program */
	assert_int_equal(fx_sh(&fx, "cc -O1 -DSTAMP='\"b\"' -o prog prog.c"), 0);
	other = fp_of(&fx);
	assert_string_not_equal(plain, other);

	/* a shared library in a subdirectory counts, sorted by path */
	assert_int_equal(fx_sh(&fx, "mkdir -p sub && cc -O1 -shared -fPIC -DVALUE=1 "
				    "-o sub/libv.so lib.c"),
			 0);
	with_lib = fp_of(&fx);
	assert_non_null(strstr(with_lib, " prog\n"));
	assert_int_equal(line_of(with_lib, " prog\n"), 1);
	assert_int_equal(line_of(with_lib, " sub/libv.so\n"), 2);
	assert_int_equal(fx_sh(&fx, "cc -O1 -shared -fPIC -DVALUE=2 -o sub/libv.so lib.c"), 0);
	lib_changed = fp_of(&fx);
	assert_string_not_equal(with_lib, lib_changed);
	{
		struct strbuf what = STRBUF_INIT;
		assert_true(fingerprint_describe_change(with_lib, lib_changed, &what));
		assert_non_null(strstr(what.buf, "sub/libv.so: "));
		assert_null(strstr(what.buf, "more file"));
		strbuf_release(&what);
	}
	free(plain);
	free(debug);
	free(other);
	free(with_lib);
	free(lib_changed);
	fx_release(&fx);
}

/*
 * A file unchanged since the last look (identity, size, mtime, ctime) is not read again:
 * its hash comes from TREE/.git/revperf-fingerprint. Shown by a hash changed in that file
 * by hand, which the next look returns; a file touched is read again; a file changed in
 * the last 2 seconds is not cached at all.
 */
static void test_cache(void **state)
{
	struct fixture fx;
	struct strbuf cache = STRBUF_INIT, text = STRBUF_INIT;
	char *first, *again, *forged, *touched, *p;
	UNUSED(state);
	fx_init(&fx);
	fx_write(&fx, "prog.c", PROG);
	assert_int_equal(fx_sh(&fx, "cc -O1 -DSTAMP='\"a\"' -o prog prog.c && mkdir -p .git && "
				    "echo text >notes.txt"),
			 0);
	strbuf_addf(&cache, "%s/.git/revperf-fingerprint", fx.dir);
	first = fp_of(&fx);
	/* just written: nothing cached yet */
	assert_int_equal(strbuf_read_file(&text, cache.buf, 1 << 20), 0);
	assert_null(strstr(text.buf, "prog"));
	sleep(3);
	again = fp_of(&fx);
	assert_string_equal(first, again);
	strbuf_reset(&text);
	assert_int_equal(strbuf_read_file(&text, cache.buf, 1 << 20), 0);
	assert_non_null(strstr(text.buf, "\tprog\n"));
	/* tagged with its hash: a cache of another hash is not read */
	assert_int_equal(strncmp(text.buf, "revperf-fingerprint 2\n", 22), 0);
	assert_non_null(strstr(text.buf, "n 0000000000000000 "));  /* notes.txt: no entry */
	/* the cached hash, changed by hand, is what the next look gives: prog was not read */
	p = strstr(text.buf, "e ");
	assert_non_null(p);
	memcpy(p + 2, "0123456789abcdef", 16);
	assert_int_equal(fx_sh(&fx, "true"), 0);
	{
		FILE *f = fopen(cache.buf, "w");
		assert_non_null(f);
		fputs(text.buf, f);
		fclose(f);
	}
	forged = fp_of(&fx);
	assert_string_equal(forged, "0123456789abcdef prog\n");
	/* touched (its mtime and ctime change): read again */
	assert_int_equal(fx_sh(&fx, "touch prog"), 0);
	touched = fp_of(&fx);
	assert_string_equal(touched, first);
	free(first);
	free(again);
	free(forged);
	free(touched);
	strbuf_release(&cache);
	strbuf_release(&text);
	fx_release(&fx);
}

static void test_describe_change(void **state)
{
	struct strbuf what = STRBUF_INIT;
	UNUSED(state);
	assert_false(fingerprint_describe_change("0123456789abcdef a\n", "0123456789abcdef a\n",
						 &what));
	assert_false(fingerprint_describe_change("", "", &what));
	assert_int_equal(what.len, 0);

	assert_true(fingerprint_describe_change("0123456789abcdef a\n1111111111111111 b\n",
						"0123456789abcdef a\n2222222222222222 b\n", &what));
	assert_string_equal(what.buf, "b: 111111111111 -> 222222222222");
	strbuf_reset(&what);

	/* a file gone, one new, one changed: the first by path, and how many more */
	assert_true(fingerprint_describe_change("0123456789abcdef a\n1111111111111111 b\n",
						"2222222222222222 b\n3333333333333333 c\n", &what));
	assert_string_equal(what.buf, "a: 0123456789ab -> (none), and 2 more files");
	strbuf_reset(&what);
	assert_true(fingerprint_describe_change("", "3333333333333333 c\n", &what));
	assert_string_equal(what.buf, "c: (none) -> 333333333333");
	strbuf_reset(&what);

	/* a path that is a prefix of another is another file */
	assert_true(fingerprint_describe_change("1111111111111111 ab\n",
						"1111111111111111 a\n1111111111111111 ab\n", &what));
	assert_string_equal(what.buf, "a: (none) -> 111111111111");
	strbuf_release(&what);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_what_counts),
		cmocka_unit_test(test_describe_change),
		cmocka_unit_test(test_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
