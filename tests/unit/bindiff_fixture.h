/*
 * Shared by test_bindiff.c and test_elf.c: a temporary directory in which the tests write
 * C sources and compile them with the system compiler, so that every binary they read is
 * a real build. Include after cmocka.h and util/common.h.
 */
#ifndef REVPERF_TESTS_BINDIFF_FIXTURE_H
#define REVPERF_TESTS_BINDIFF_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fixture {
	char dir[64];
};

/* A few paths at once: see fx_path(). */
static char fx_paths[8][512];
static int fx_next;

static void fx_init(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/revperf-test-bindiff-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
}

static void fx_release(struct fixture *fx)
{
	struct strbuf cmd = STRBUF_INIT;
	strbuf_addf(&cmd, "rm -rf '%s'", fx->dir);
	assert_int_equal(system(cmd.buf), 0);
	strbuf_release(&cmd);
}

/* dir/name; valid until eight more calls. */
static const char *fx_path(struct fixture *fx, const char *name)
{
	char *p = fx_paths[fx_next++ % 8];
	snprintf(p, sizeof(fx_paths[0]), "%s/%s", fx->dir, name);
	return p;
}

static void fx_write(struct fixture *fx, const char *name, const char *text)
{
	FILE *f = fopen(fx_path(fx, name), "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Runs a shell command in the fixture directory; returns its exit status. */
__attribute__((format(printf, 2, 3))) static int fx_sh(struct fixture *fx, const char *fmt, ...)
{
	struct strbuf cmd = STRBUF_INIT;
	va_list ap;
	int ret;
	strbuf_addf(&cmd, "cd '%s' && ", fx->dir);
	va_start(ap, fmt);
	strbuf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	ret = system(cmd.buf);
	if (ret)
		print_message("command failed (%d): %s\n", ret, cmd.buf);
	strbuf_release(&cmd);
	return ret;
}

/* Writes src to name.c and compiles it into `out` with flags; fails the test on error. */
static void fx_build(struct fixture *fx, const char *name, const char *src, const char *flags,
		     const char *out)
{
	struct strbuf file = STRBUF_INIT;
	strbuf_addf(&file, "%s.c", name);
	fx_write(fx, file.buf, src);
	assert_int_equal(fx_sh(fx, "cc -g %s -o %s %s", flags, out, file.buf), 0);
	strbuf_release(&file);
}

/* 1-based line of the first occurrence of needle in text, 0 if absent. */
static unsigned line_of(const char *text, const char *needle)
{
	const char *p = strstr(text, needle), *q;
	unsigned line = 1;
	if (!p)
		return 0;
	for (q = text; q < p; q++)
		line += *q == '\n';
	return line;
}

#endif
