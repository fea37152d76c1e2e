/* Unit tests of the configuration layer: parsing, errors with file:line, overrides. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/config.h"
#include "util/parse.h"
#include "util/common.h"
#include "util/input.h"

static char *write_tmp(const char *text)
{
	char *path = xstrdup("/tmp/revperf-test-config-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* Parses text; returns config_read's result and leaves cfg filled. */
static int parse(struct config *cfg, const char *text)
{
	char *path = write_tmp(text);
	int ret;
	config_init(cfg);
	ret = config_read(cfg, path);
	if (!ret)
		ret = config_finish(cfg);
	unlink(path);
	free(path);
	return ret;
}

static void test_full_config(void **state)
{
	struct config cfg;
	struct bench_config *b;
	UNUSED(state);
	assert_int_equal(parse(&cfg, "; comment\n[build]\ncommand = make -j2 bench\n"
				     "[defaults]\ntolerance = 3%\nruns = 4..12\nalpha = 0.05\n"
				     "[benchmark \"ingest\"]\ncommand = ./b ingest 10 ; inline\n"
				     "metrics = wall, cpu\nprimary = cpu\ntimeout = 2m\nwarmup = 2\n"
				     "[benchmark \"query\"]\ncommand = ./b query\ntolerance = 5%\n"),
			 0);
	assert_string_equal(cfg.build_command, "make -j2 bench");
	assert_true(cfg.alpha == 0.05);
	assert_int_equal(cfg.nr_benches, 2);
	b = config_bench(&cfg, "ingest");
	assert_non_null(b);
	assert_string_equal(b->command, "./b ingest 10");
	assert_string_equal(b->metrics, "wall, cpu");
	assert_string_equal(b->primary, "cpu");
	assert_true(b->tolerance == 0.03);
	assert_int_equal(b->min_runs, 4);
	assert_int_equal(b->max_runs, 12);
	assert_int_equal(b->warmup, 2);
	assert_true(b->timeout_ns == 120LL * 1000000000LL);
	b = config_bench(&cfg, "query");
	assert_true(b->tolerance == 0.05);
	assert_string_equal(b->primary, "wall");
	config_release(&cfg);
}

static void test_long_command_not_truncated(void **state)
{
	struct config cfg;
	struct strbuf text = STRBUF_INIT, cmd = STRBUF_INIT;
	UNUSED(state);
	for (int i = 0; i < 200; i++)
		strbuf_addf(&cmd, "arg%d ", i);
	strbuf_addstr(&cmd, "end");
	strbuf_addf(&text, "[benchmark \"long\"]\ncommand = %s\n", cmd.buf);
	assert_int_equal(parse(&cfg, text.buf), 0);
	assert_string_equal(config_bench(&cfg, "long")->command, cmd.buf);
	config_release(&cfg);
	strbuf_release(&text);
	strbuf_release(&cmd);
}

static void test_errors(void **state)
{
	static const char *const bad[] = {
		"[benchmark \"x\"]\ncommand = a\nfoo = 1\n",    /* unknown key */
		"[nonsense]\nx = 1\n",                            /* unknown section */
		"[benchmark \"x\"]\ncommand = a\ntolerance = lots\n",
		"[benchmark \"x\"]\ncommand = a\nruns = 9..3\n",
		"[benchmark \"x\"]\ncommand = a\nruns = 1..3\n",  /* min < 2 */
		"[benchmark \"x\"]\ncommand = a\ntimeout = soon\n",
		"[benchmark \"x\"]\nmetrics = wall\n",            /* no command */
		"[benchmark \"x\"\ncommand = a\n",                /* syntax */
		"[benchmark \"bad name\"]\ncommand = a\n",
		"[defaults]\nalpha = 0.7\n",
	};
	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct config cfg;
		assert_int_equal(parse(&cfg, bad[i]), RP_EINPUT);
		config_release(&cfg);
	}
}

/* config_read() of `len` bytes of text (NUL bytes allowed), stderr captured into err. */
static int read_capturing(const char *text, size_t len, const char *path_or_null,
			  struct strbuf *err)
{
	char *path = path_or_null ? xstrdup(path_or_null) : write_tmp("");
	char errpath[] = "/tmp/revperf-test-config-err-XXXXXX";
	int efd = mkstemp(errpath), saved, ret, fd;
	struct config cfg;

	if (!path_or_null) {
		fd = open(path, O_WRONLY | O_TRUNC);
		assert_int_equal(write(fd, text, len), (ssize_t)len);
		close(fd);
	}
	fflush(stderr);
	saved = dup(2);
	dup2(efd, 2);
	config_init(&cfg);
	ret = config_read(&cfg, path);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(efd);
	strbuf_reset(err);
	assert_int_equal(input_read(err, errpath, &input_state), 0);
	unlink(errpath);
	config_release(&cfg);
	if (!path_or_null)
		unlink(path);
	free(path);
	return ret;
}

/* What would silently drop or cut a value is an error naming the line (issue 16). */
static void test_file_errors_name_the_line(void **state)
{
	static const struct {
		const char *text;
		size_t len; /* 0: strlen */
		const char *message;
	} cases[] = {
	    {"[benchmark \"x\"]\ncommand = a\n[build]\ncommand = b\n[benchmark \"x\"]\n"
	     "runs = 3..9\n",
	     0, ":5: section [benchmark \"x\"] appears a second time (first at line 1)"},
	    {"[benchmark \"x\"]\ncommand = a\n[benchmark\"x\"]\n", 0,
	     ":3: section [benchmark\"x\"] appears a second time (first at line 1)"},
	    {"[build]\ncommand = a\n\n; comment\ncommand = b\n", 0,
	     ":5: 'command' is set a second time in [build] (first at line 2); keep one"},
	    {"[benchmark \"x\"]\ncommand = tr\0ue\n", 32, ":2: a NUL byte"},
	    {"\0", 1, ":1: a NUL byte"},
	};
	struct strbuf err = STRBUF_INIT;
	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
		assert_int_equal(read_capturing(cases[i].text, len, NULL, &err), RP_EINPUT);
		if (!strstr(err.buf, cases[i].message))
			fail_msg("case %zu: got '%s', expected '%s'", i, err.buf, cases[i].message);
		assert_true(strchr(err.buf, '\n') == err.buf + err.len - 1); /* one line */
	}
	/* Not a file: a directory says so; a device or FIFO is refused without reading. */
	assert_int_equal(read_capturing(NULL, 0, "/tmp", &err), RP_EINPUT);
	assert_non_null(strstr(err.buf, "configuration '/tmp' is a directory, not a file"));
	assert_int_equal(read_capturing(NULL, 0, "/dev/zero", &err), RP_EINPUT);
	assert_non_null(strstr(err.buf, "'/dev/zero' is a character device, not a regular file"));
	strbuf_release(&err);
}

/* An indented line is a key of its own, not a continuation replacing the value above. */
static void test_indented_key(void **state)
{
	struct config cfg;
	UNUSED(state);
	assert_int_equal(parse(&cfg, "[benchmark \"x\"]\ncommand = ./a\n    tolerance = 3%\n"), 0);
	assert_string_equal(config_bench(&cfg, "x")->command, "./a");
	assert_true(config_bench(&cfg, "x")->tolerance == 0.03);
	config_release(&cfg);
}

static void test_missing_file(void **state)
{
	struct config cfg;
	UNUSED(state);
	config_init(&cfg);
	assert_int_equal(config_read(&cfg, "/nonexistent/revperf.ini"), RP_EINPUT);
	config_release(&cfg);
}

static void test_override_beats_file(void **state)
{
	struct config cfg;
	char *path = write_tmp("[benchmark \"x\"]\ncommand = a\ntolerance = 5%\nruns = 3..4\n");
	UNUSED(state);
	config_init(&cfg);
	assert_int_equal(config_read(&cfg, path), 0);
	assert_int_equal(config_set(&cfg, NULL, "tolerance", "1%", "--tolerance"), 0);
	assert_int_equal(config_set(&cfg, NULL, "runs", "6..8", "--runs"), 0);
	assert_int_equal(config_set(&cfg, "build", "command", "make x", "--build-command"), 0);
	assert_int_equal(config_set(&cfg, NULL, "tolerance", "many", "--tolerance"), RP_EINPUT);
	assert_int_equal(config_finish(&cfg), 0);
	assert_true(config_bench(&cfg, "x")->tolerance == 0.01);
	assert_int_equal(config_bench(&cfg, "x")->min_runs, 6);
	assert_string_equal(cfg.build_command, "make x");
	config_release(&cfg);
	unlink(path);
	free(path);
}

static void test_select(void **state)
{
	struct config cfg;
	UNUSED(state);
	assert_int_equal(parse(&cfg, "[benchmark \"a\"]\ncommand = 1\n[benchmark \"b\"]\n"
				     "command = 2\n[benchmark \"c\"]\ncommand = 3\n"),
			 0);
	assert_int_equal(config_select(&cfg, "c,a"), 0);
	assert_int_equal(cfg.nr_benches, 2);
	assert_string_equal(cfg.benches[0].name, "c");
	assert_string_equal(cfg.benches[1].command, "1");
	assert_int_equal(config_select(&cfg, "zzz"), RP_EINPUT);
	config_release(&cfg);
}

static void test_template_parses(void **state)
{
	struct config cfg;
	char path[] = "/tmp/revperf-test-template-XXXXXX";
	int fd = mkstemp(path);
	UNUSED(state);
	close(fd);
	unlink(path);
	assert_int_equal(config_write_template(path), 0);
	assert_int_equal(config_write_template(path), RP_EINPUT); /* never overwrites */
	config_init(&cfg);
	assert_int_equal(config_read(&cfg, path), 0);
	assert_int_equal(config_finish(&cfg), 0);
	assert_int_equal(cfg.nr_benches, 1);
	assert_non_null(cfg.build_command);
	config_release(&cfg);
	unlink(path);
}

static void test_value_parsers(void **state)
{
	double d;
	ns_t ns;
	size_t lo, hi;
	UNUSED(state);
	assert_int_equal(parse_percent("2%", &d), 0);
	assert_true(d == 0.02);
	assert_int_equal(parse_percent("0.5", &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(parse_percent("x%", &d), -1);
	/* A bare number is a fraction: "2" would be 200%, refused with the hint to write 2%. */
	assert_int_equal(parse_percent("1", &d), 0);
	assert_true(d == 1.0);
	assert_int_equal(parse_percent("200%", &d), 0);
	assert_true(d == 2.0);
	{
		static const char *const bare[] = { "2", " 2", "1.5", "50" };
		for (size_t i = 0; i < ARRAY_SIZE(bare); i++) {
			struct strbuf hint = STRBUF_INIT, want = STRBUF_INIT;
			const char *s = bare[i] + strspn(bare[i], " ");
			assert_int_equal(parse_percent(bare[i], &d), -1);
			assert_int_equal(parse_percent_hint(bare[i], &hint), 1);
			strbuf_addf(&want, "write %s%% for %s percent", s, s);
			if (!strstr(hint.buf, want.buf))
				fail_msg("hint for '%s': '%s'", bare[i], hint.buf);
			strbuf_release(&hint);
			strbuf_release(&want);
		}
		static const char *const other[] = { "0.5", "2%", "x", "-2", "" };
		for (size_t i = 0; i < ARRAY_SIZE(other); i++) {
			struct strbuf hint = STRBUF_INIT;
			assert_int_equal(parse_percent_hint(other[i], &hint), 0);
			assert_int_equal(hint.len, 0);
		}
	}
	assert_int_equal(parse_duration("500ms", &ns), 0);
	assert_true(ns == 500000000LL);
	assert_int_equal(parse_duration("1.5", &ns), 0);
	assert_true(ns == 1500000000LL);
	assert_int_equal(parse_duration("5 parsecs", &ns), -1);
	/* Days, for revperf gc --older-than. */
	assert_int_equal(parse_duration("30d", &ns), 0);
	assert_true(ns == 30LL * 86400 * 1000000000LL);
	assert_int_equal(parse_duration("0s", &ns), 0);
	assert_true(ns == 0);
	assert_int_equal(parse_duration("banana", &ns), -1);
	assert_int_equal(parse_duration("-5d", &ns), -1);
	assert_int_equal(parse_run_range("5..30", &lo, &hi), 0);
	assert_int_equal(lo, 5);
	assert_int_equal(hi, 30);
	assert_int_equal(parse_run_range("10", &lo, &hi), 0);
	assert_int_equal(lo, 10);
	assert_int_equal(hi, 10);
	assert_int_equal(parse_run_range("5..", &lo, &hi), -1);
	assert_int_equal(parse_run_range("-3..4", &lo, &hi), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_config),
		cmocka_unit_test(test_long_command_not_truncated),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_file_errors_name_the_line),
		cmocka_unit_test(test_indented_key),
		cmocka_unit_test(test_override_beats_file),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_template_parses),
		cmocka_unit_test(test_value_parsers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
