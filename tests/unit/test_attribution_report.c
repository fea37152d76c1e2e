/*
 * Unit tests of the attribution's renderers (report/attribution_report.h): time in its
 * unit with the sd and the interval, counts with their event, calls shown only when known,
 * no spread said once; the JSON round trip the site reads back, and a damaged file refused
 * with one line naming it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analysis/profile_attribution.h"
#include "profile/folded.h"
#include "report/attribution_report.h"
#include "util/common.h"

#include "capture_stderr.h"

/* The attribution of runs given as folded text, side A then B, weighed by `w`. */
static void make(const char *const *a, size_t na, const char *const *b, size_t nb,
		 enum cct_weight w, const char *event, bool calls, struct attribution *out)
{
	struct cct trees[2][4];
	const struct cct *ptrs[2][4];
	const char *const *text[2] = {a, b};
	size_t nr[2] = {na, nb};
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < nr[s]; i++) {
			assert_int_equal(
			    folded_parse(text[s][i], strlen(text[s][i]), "t", &trees[s][i]), 0);
			cct_set_weight(&trees[s][i], w, event);
			trees[s][i].calls_known = calls;
			ptrs[s][i] = &trees[s][i];
		}
	{
		const struct cct *const *runs[2] = {ptrs[0], ptrs[1]};
		assert_int_equal(attribution_of_runs(runs, nr, 0.01, 0, out), 0);
	}
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < nr[s]; i++)
			cct_release(&trees[s][i]);
}

static char *render_text(const struct attribution *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	attribution_text(f, a, 0, "");
	fclose(f);
	return buf;
}

static void test_time_units_and_intervals(void **state)
{
	const char *a[] = {"main;f 12000000\nmain 1000\n", "main;f 12400000\nmain 1000\n",
			   "main;f 12200000\nmain 1000\n"};
	const char *b[] = {"main;f 20000000\nmain 1000\n", "main;f 20400000\nmain 1000\n",
			   "main;f 20200000\nmain 1000\n"};
	struct attribution at;
	char *text;
	UNUSED(state);

	make(a, 3, b, 3, CCT_WEIGHT_CPU_NS, NULL, false, &at);
	text = render_text(&at);
	assert_non_null(strstr(text, "absolute change, on-CPU time, summed over threads:\n"));
	assert_non_null(strstr(text, "  3 + 3 runs; per run 12.20 ± 0.20 ms -> 20.20 ± 0.20 ms, "
				     "change +8.00 ± 0.75 ms (finding)\n"));
	/* columns of 24 characters ("±" is one), share 8, class 10, then the name */
	assert_non_null(strstr(text, "  12.20 ± 0.20 ms         20.20 ± 0.20 ms         "
				     "+8.00 ± 0.75 ms         100.0%  finding   f\n"));
	assert_null(strstr(text, "calls"));
	assert_non_null(strstr(text, "99% Welch interval; noise: that interval holds 0"));
	free(text);
	attribution_release(&at);
}

/*
 * A change smaller than its interval is shown in the interval's unit: "-0.33 ± 3.31 ms",
 * not "-333.33 ± 3308.28 us" (libdeflate trial: a function sampled for 1 ms in one run of
 * three); a mean below its sd likewise.
 */
static void test_time_unit_of_the_larger(void **state)
{
	const char *a[] = {"main;g 1000000\nmain 9000000\n", "main 9000000\n", "main 9000000\n"};
	const char *b[] = {"main 9000000\n", "main 9000000\n", "main 9000000\n"};
	struct attribution at;
	char *text;
	UNUSED(state);

	make(a, 3, b, 3, CCT_WEIGHT_CPU_NS, NULL, false, &at);
	text = render_text(&at);
	assert_non_null(strstr(text, "-0.33 ± 3.31 ms"));
	assert_null(strstr(text, "3308.28"));
	/* the mean 333.33 us, its sd 577.35 us: the sd's unit is the same */
	assert_non_null(strstr(text, "333.33 ± 577.35 us"));
	free(text);
	attribution_release(&at);
}

static void test_counts_calls_and_no_spread(void **state)
{
	const char *a[] = {"main;kv_hash 6000000\n"};
	const char *b[] = {"main;kv_hash 6600000\n"};
	struct attribution at;
	char *text;
	UNUSED(state);

	make(a, 1, b, 1, CCT_WEIGHT_EVENT, "Ir", true, &at);
	text = render_text(&at);
	assert_non_null(strstr(text, "absolute change, instructions (Ir):\n"));
	assert_non_null(strstr(text, "  1 + 1 runs; per run 6.000 M Ir -> 6.600 M Ir, change "
				     "+600.000 k Ir\n"));
	assert_non_null(strstr(text, "kv_hash  (calls 0 -> 0)\n"));
	assert_non_null(strstr(text, "(no spread: each side has a single run, so no change can "
				     "be told from run-to-run noise; take several runs per side)"));
	assert_null(strstr(text, "finding"));
	free(text);
	attribution_release(&at);
}

static void test_json_round_trip_and_damage(void **state)
{
	const char *a[] = {"main;f 100\n", "main;f 110\n"};
	const char *b[] = {"main;f 300\nmain;<b>x</b> 5\n", "main;f 310\n"};
	struct attribution at, back;
	char path[] = "/tmp/revperf-attr-XXXXXX";
	struct stderr_capture cap;
	char *err;
	int fd, ret;
	UNUSED(state);

	make(a, 2, b, 2, CCT_WEIGHT_ELAPSED_NS, NULL, false, &at);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path); /* written anew, never through what was there */
	assert_int_equal(attribution_write_json(path, &at), 0);
	assert_int_equal(attribution_read_json(path, &back), 0);
	assert_int_equal(back.weight, CCT_WEIGHT_ELAPSED_NS);
	assert_int_equal(back.runs[0], 2);
	assert_int_equal(back.nr_funcs, at.nr_funcs);
	assert_int_equal(back.changed_paths, at.changed_paths);
	for (size_t i = 0; i < at.nr_funcs; i++) {
		assert_string_equal(back.funcs[i].key, at.funcs[i].key);
		assert_true(back.funcs[i].delta == at.funcs[i].delta);
		assert_true(back.funcs[i].ci_lo == at.funcs[i].ci_lo);
		assert_int_equal(back.funcs[i].class, at.funcs[i].class);
		assert_true(isnan(back.funcs[i].side[0].calls));
	}
	{
		struct strbuf html = STRBUF_INIT;
		attribution_html(&html, &back, 0);
		assert_non_null(strstr(html.buf, "&lt;b&gt;x&lt;/b&gt;"));
		assert_null(strstr(html.buf, "<b>x"));
		strbuf_release(&html);
	}
	attribution_release(&back);

	/* A damaged file: a field of the wrong type. */
	{
		FILE *f = fopen(path, "w");
		fputs("{\"attribution\": {\"unit\": \"ns\", \"clock\": \"elapsed\", \"runs\": [2, "
		      "2], "
		      "\"calls_known\": false, \"alpha\": 0.01, \"total\": 5}}\n",
		      f);
		fclose(f);
	}
	capture_stderr_begin(&cap);
	ret = attribution_read_json(path, &back);
	err = capture_stderr_end(&cap);
	assert_int_equal(ret, RP_EINPUT);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "not an attribution revperf wrote"));
	assert_int_equal(back.nr_funcs, 0);
	free(err);
	unlink(path);
	attribution_release(&at);
}

/*
 * A unit longer than the event names revperf keeps (found by tests/fuzz/fuzz_attribution_json):
 * refused, not cut inside a UTF-8 sequence into a name the writer then drops, so that what
 * was read could not be written back and read again.
 */
static void test_json_long_unit_refused(void **state)
{
	const char *a[] = {"main;f 100\n", "main;f 110\n"};
	const char *b[] = {"main;f 300\n", "main;f 310\n"};
	struct attribution at, back;
	struct stderr_capture cap;
	json_t *doc;
	char *err;
	UNUSED(state);

	make(a, 2, b, 2, CCT_WEIGHT_EVENT, "Ir", false, &at);
	doc = attribution_json(&at);
	/* 31 bytes fit (weight_event[32]) */
	json_object_set_new(doc, "unit", json_string("abcdefghijklmnopqrstuvwxyz01234"));
	assert_int_equal(attribution_from_json(doc, "t", &back), 0);
	assert_string_equal(back.weight_event, "abcdefghijklmnopqrstuvwxyz01234");
	attribution_release(&back);
	/* 17 x "\xc3\xa9": 34 bytes, byte 31 in the middle of a character */
	json_object_set_new(doc, "unit",
			    json_string("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
					"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
					"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"));
	assert_non_null(json_object_get(doc, "unit"));
	capture_stderr_begin(&cap);
	assert_int_equal(attribution_from_json(doc, "long-unit.json", &back), RP_EINPUT);
	err = capture_stderr_end(&cap);
	assert_non_null(strstr(err, "long-unit.json"));
	assert_non_null(strstr(err, "not an attribution revperf wrote"));
	assert_int_equal(back.nr_funcs, 0);
	free(err);
	json_decref(doc);
	attribution_release(&at);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_time_units_and_intervals),
	    cmocka_unit_test(test_time_unit_of_the_larger),
	    cmocka_unit_test(test_counts_calls_and_no_spread),
	    cmocka_unit_test(test_json_round_trip_and_damage),
	    cmocka_unit_test(test_json_long_unit_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
