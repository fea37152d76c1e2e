/*
 * How the I/O reports write a stack trace (src/report/io_report.c): around the program's
 * own frames, the library internals elided with "...", then to a width; and which frames
 * are the program's (io_profiles_frame_kinds() in src/profile/io_profile.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "profile/io_profile.h"
#include "report/io_report.h"
#include "util/common.h"
#include "util/strmap.h"

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"

/* The frames of a dynamically linked program and of its C library, by name. */
static void kinds_of_dynamic(struct strmap *m)
{
	static const char *const own[] = {"_start",	  "main",   "save",	  "flush_all",
					  "compare_keys", "worker", "prog+0x1234"};
	static const char *const lib[] = {
	    "__libc_start_main", "libc.so.6+0x27249", "_IO_fflush",
	    "_IO_file_sync",	 "_IO_do_write",      "libc.so.6+0x8037f",
	    "_IO_file_write",	 "__write",	      "qsort",
	    "msort_with_tmp",	 "start_thread",      "clone3"};
	for (size_t i = 0; i < ARRAY_SIZE(own); i++)
		strmap_put(m, own[i], 1, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(lib); i++)
		strmap_put(m, lib[i], 0, NULL);
}

static void test_stack_around_program(void **state)
{
	static const struct {
		const char *stack;
		size_t width;
		const char *want;
	} cases[] = {
	    /* stdio: the program, the frame where it enters the C library, "..." */
	    {"_start;__libc_start_main;libc.so.6+0x27249;main;save;_IO_fflush;_IO_file_sync;"
	     "_IO_do_write;libc.so.6+0x8037f;_IO_file_write;__write",
	     0, "...;main;save;_IO_fflush;..."},
	    /* a direct write: the one library frame is the entry, nothing to elide */
	    {"_start;__libc_start_main;libc.so.6+0x27249;main;save;__write", 0,
	     "...;main;save;__write"},
	    /* a library calling back into the program: its entry frame kept, its inside elided */
	    {"_start;__libc_start_main;libc.so.6+0x27249;main;qsort;msort_with_tmp;compare_keys;"
	     "__write",
	     0, "...;main;qsort;...;compare_keys;__write"},
	    /* a thread: its start in the C library is one "..." */
	    {"clone3;start_thread;worker;flush_all;_IO_fflush;__write", 0,
	     "...;worker;flush_all;_IO_fflush;..."},
	    /* an unsymbolized frame of the program is the program's */
	    {"clone3;start_thread;prog+0x1234;__write", 0, "...;prog+0x1234;__write"},
	    /* a frame missing from the map counts as the program's */
	    {"_start;__libc_start_main;libc.so.6+0x27249;main;unknown_fn;__write", 0,
	     "...;main;unknown_fn;__write"},
	    /* without _start at the root (a stack cut short), nothing above is dropped */
	    {"main;qsort;msort_with_tmp;compare_keys;__write", 0,
	     "main;qsort;...;compare_keys;__write"},
	    /* only library frames, only the program's: unchanged */
	    {"clone3;start_thread;__write", 0, "clone3;start_thread;__write"},
	    {"main;save", 0, "main;save"},
	    {"[no stack]", 0, "[no stack]"},
	    /* then to a width: no two "..." side by side */
	    {"_start;__libc_start_main;libc.so.6+0x27249;main;save;flush_all;compare_keys;"
	     "_IO_fflush;_IO_file_sync",
	     31, "...;compare_keys;_IO_fflush;..."},
	};
	struct strmap m = STRMAP_INIT;
	(void)state;
	kinds_of_dynamic(&m);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, "> ");
		io_report_stack(&sb, cases[i].stack, &m, cases[i].width);
		if (strcmp(sb.buf + 2, cases[i].want))
			fail_msg("case %zu: got '%s', want '%s'", i, sb.buf + 2, cases[i].want);
		strbuf_release(&sb);
	}
	strmap_release(&m);
}

/* Without the map: the width alone, as before. */
static void test_stack_width_only(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	io_report_stack(&sb, "a;b;c;d;e", NULL, 0);
	assert_string_equal(sb.buf, "a;b;c;d;e");
	strbuf_reset(&sb);
	io_report_stack(&sb, "first;bbbbbbbb;cccccccc;last", NULL, 20);
	assert_string_equal(sb.buf, "first;...;last");
	strbuf_release(&sb);
}

static void frame(struct io_frame *f, const char *module, const char *fn, const char *src)
{
	memset(f, 0, sizeof(*f));
	f->module = xstrdup(module);
	f->function = xstrdup(fn);
	f->source = src ? xstrdup(src) : NULL;
}

/* Which frames are the program's: by module; with -g, frames without a line are not. */
static void test_frame_kinds(void **state)
{
	struct io_profile p[2];
	struct strmap m = STRMAP_INIT;
	struct io_entry *e;
	(void)state;
	memset(p, 0, sizeof(p));
	/* A dynamically linked program without -g. */
	p[0].nr_entries = 1;
	e = p[0].entries = xcalloc(1, sizeof(*e));
	e->nr_frames = 4;
	e->frames = xcalloc(4, sizeof(*e->frames));
	frame(&e->frames[0], LIBC, "__write", NULL);
	frame(&e->frames[1], "/work/prog", "save", NULL);
	frame(&e->frames[2], LIBC, "__libc_start_main", NULL);
	frame(&e->frames[3], "/work/prog", "_start", NULL);
	/* A static program built with -g: the C library inside it has no lines. */
	p[1].nr_entries = 1;
	e = p[1].entries = xcalloc(1, sizeof(*e));
	e->nr_frames = 4;
	e->frames = xcalloc(4, sizeof(*e->frames));
	frame(&e->frames[0], "/work/static", "_IO_fflush", NULL);
	frame(&e->frames[1], "/work/static", "flush_all", "static.c:12");
	frame(&e->frames[2], "/work/static", "main", "static.c:30");
	frame(&e->frames[3], "/work/static", "_start", NULL);
	io_profiles_frame_kinds(p, 2, &m);
	assert_int_equal(*strmap_get(&m, "__write"), 0);
	assert_int_equal(*strmap_get(&m, "__libc_start_main"), 0);
	assert_int_equal(*strmap_get(&m, "save"), 1);
	assert_int_equal(*strmap_get(&m, "_IO_fflush"), 0);
	assert_int_equal(*strmap_get(&m, "flush_all"), 1);
	assert_int_equal(*strmap_get(&m, "main"), 1);
	/* _start: the library's in the -g program, the program's in the other: the program's. */
	assert_int_equal(*strmap_get(&m, "_start"), 1);
	strmap_release(&m);
	for (int i = 0; i < 2; i++)
		io_profile_release(&p[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stack_around_program),
	    cmocka_unit_test(test_stack_width_only),
	    cmocka_unit_test(test_frame_kinds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
