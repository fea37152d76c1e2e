/*
 * Where revperf finds its helpers (collect/helper_path.h): the environment variable first,
 * else the directories relative to the running executable (this test program), in order,
 * "." and ".." resolved; when none holds the file, one error that names every place
 * looked at, the executable, and what to do.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "collect/helper_path.h"
#include "util/common.h"
#include "util/fsutil.h"

#include "capture_stderr.h"

#define ENV "REVPERF_TEST_HELPER"

static char tmp[64];		       /* a fresh directory under /tmp */
static struct strbuf up = STRBUF_INIT; /* "../../..": from this program's directory to "/" */

static int setup(void **state)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	UNUSED(state);
	snprintf(tmp, sizeof(tmp), "/tmp/revperf-helper-XXXXXX");
	if (!mkdtemp(tmp) || n <= 0)
		return -1;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	/* One ".." per directory of exe, and two more: ".." at "/" stays at "/". */
	strbuf_reset(&up);
	for (const char *p = exe; *p; p++)
		if (*p == '/')
			strbuf_addstr(&up, "../");
	strbuf_addstr(&up, "../..");
	unsetenv(ENV);
	return 0;
}

static int teardown(void **state)
{
	UNUSED(state);
	remove_tree(tmp);
	strbuf_release(&up);
	return 0;
}

static void touch(const char *dir, const char *name, mode_t mode)
{
	struct strbuf p = STRBUF_INIT;
	FILE *f;
	strbuf_addf(&p, "%s/%s", tmp, dir);
	assert_int_equal(mkdir_p(p.buf), 0);
	strbuf_addf(&p, "/%s", name);
	assert_non_null(f = fopen(p.buf, "w"));
	fclose(f);
	assert_int_equal(chmod(p.buf, mode), 0);
	strbuf_release(&p);
}

/* A helper looked for in tmp/a, tmp/./b/../b and tmp/c, as paths relative to this program. */
static void make_helper(struct helper_file *h, char dirs[3][PATH_MAX], const char *rel[4])
{
	snprintf(dirs[0], PATH_MAX, "%s%s/a", up.buf, tmp);
	snprintf(dirs[1], PATH_MAX, "%s%s/./b/../b", up.buf, tmp);
	snprintf(dirs[2], PATH_MAX, "%s%s/c", up.buf, tmp);
	for (int i = 0; i < 3; i++)
		rel[i] = dirs[i];
	rel[3] = NULL;
	h->name = "the-helper";
	h->what = "the test helper";
	h->env = ENV;
	h->dirs = rel;
	h->executable = true;
}

static void test_first_dir_that_holds_it(void **state)
{
	struct helper_file h;
	char dirs[3][PATH_MAX];
	const char *rel[4];
	struct strbuf path = STRBUF_INIT, want = STRBUF_INIT;
	UNUSED(state);
	make_helper(&h, dirs, rel);
	touch("b", "the-helper", 0755);
	touch("c", "the-helper", 0755);
	assert_int_equal(helper_find(&h, &path), 0);
	/* b, not c; the path without "." or "..". */
	strbuf_addf(&want, "%s/b/the-helper", tmp);
	assert_string_equal(path.buf, want.buf);
	/* Not executable: looked past (a runtime, R_OK, would take it). */
	assert_int_equal(chmod(want.buf, 0644), 0);
	strbuf_reset(&path);
	assert_int_equal(helper_find(&h, &path), 0);
	assert_non_null(strstr(path.buf, "/c/the-helper"));
	h.executable = false;
	strbuf_reset(&path);
	assert_int_equal(helper_find(&h, &path), 0);
	assert_string_equal(path.buf, want.buf);
	strbuf_release(&path);
	strbuf_release(&want);
}

static void test_missing_names_every_place(void **state)
{
	struct helper_file h;
	char dirs[3][PATH_MAX];
	const char *rel[4];
	struct strbuf path = STRBUF_INIT, want = STRBUF_INIT;
	struct stderr_capture cap;
	char *err;
	UNUSED(state);
	make_helper(&h, dirs, rel);
	remove_tree(tmp);
	assert_int_equal(mkdir_p(tmp), 0);
	capture_stderr_begin(&cap);
	assert_int_equal(helper_find(&h, &path), RP_EINPUT);
	err = capture_stderr_end(&cap);
	assert_int_equal(path.len, 0);
	/* One line: the file, each place in order, the executable, what to do. */
	assert_non_null(strstr(err, "cannot find the test helper the-helper: looked at "));
	strbuf_addf(&want, "%s/a/the-helper, %s/b/the-helper, %s/c/the-helper (", tmp, tmp, tmp);
	assert_non_null(strstr(err, want.buf));
	assert_non_null(strstr(err, "test_helper_path"));
	assert_non_null(strstr(err, "make install"));
	assert_non_null(strstr(err, ENV));
	assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1); /* one line */
	free(err);
	strbuf_release(&path);
	strbuf_release(&want);
}

static void test_environment_first(void **state)
{
	struct helper_file h;
	char dirs[3][PATH_MAX];
	const char *rel[4];
	struct strbuf path = STRBUF_INIT, named = STRBUF_INIT;
	struct stderr_capture cap;
	char *err;
	UNUSED(state);
	make_helper(&h, dirs, rel);
	touch("a", "the-helper", 0755);
	touch("elsewhere", "mine", 0755);
	strbuf_addf(&named, "%s/elsewhere/mine", tmp);
	setenv(ENV, named.buf, 1);
	assert_int_equal(helper_find(&h, &path), 0);
	assert_string_equal(path.buf, named.buf);
	/* Named but absent: an error about the variable, not a search elsewhere. */
	setenv(ENV, "/nonexistent/the-helper", 1);
	strbuf_reset(&path);
	capture_stderr_begin(&cap);
	assert_int_equal(helper_find(&h, &path), RP_EINPUT);
	err = capture_stderr_end(&cap);
	assert_non_null(strstr(err, ENV "='/nonexistent/the-helper'"));
	free(err);
	/* Empty: as if unset. */
	setenv(ENV, "", 1);
	strbuf_reset(&path);
	assert_int_equal(helper_find(&h, &path), 0);
	assert_non_null(strstr(path.buf, "/a/the-helper"));
	unsetenv(ENV);
	strbuf_release(&path);
	strbuf_release(&named);
}

/* The helpers of this build are found from the build tree (tests/ is one level down). */
static void test_build_tree_runtime(void **state)
{
	struct strbuf path = STRBUF_INIT;
	UNUSED(state);
	unsetenv("REVPERF_CCT_RUNTIME");
	assert_int_equal(helper_find(&helper_cct_runtime, &path), 0);
	assert_non_null(strstr(path.buf, "/runtime/librevperf_cct.so"));
	assert_null(strstr(path.buf, "/../"));
	strbuf_release(&path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_first_dir_that_holds_it, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_missing_names_every_place, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_environment_first, setup, teardown),
	    cmocka_unit_test(test_build_tree_runtime),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
