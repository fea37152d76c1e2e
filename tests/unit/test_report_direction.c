/*
 * An undecided verdict whose interval excludes 1 says which way the change goes (issue 17,
 * item 4): report_known_direction() and report_undecided_note(), as the text, Markdown
 * and JSON reports use them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "compare/compare.h"
#include "report/report.h"
#include "util/common.h"

static void check(const char *metric, enum verdict v, double lo, double hi, const char *want,
		  const char *note)
{
	struct metric_outcome m;
	struct strbuf sb = STRBUF_INIT;
	const char *got;
	memset(&m, 0, sizeof(m));
	m.def = metric_find(metric);
	m.measured = true;
	m.r.verdict = v;
	m.r.ci_lo = lo;
	m.r.ci_hi = hi;
	m.r.ratio = (lo + hi) / 2;
	got = report_known_direction(&m);
	if (want ? !got || strcmp(got, want) : got != NULL)
		fail_msg("%s [%g, %g]: %s, want %s", metric, lo, hi, got ? got : "NULL",
			 want ? want : "NULL");
	report_undecided_note(&sb, &m);
	assert_string_equal(sb.buf, note);
	strbuf_release(&sb);
}

static void test_direction(void **state)
{
	UNUSED(state);
	check("wall", VERDICT_UNDECIDED, 0.902, 0.993, "faster", " (faster: -9.8% to -0.7%)");
	check("wall", VERDICT_UNDECIDED, 1.004, 1.08, "slower", " (slower: +0.4% to +8.0%)");
	check("maxrss", VERDICT_UNDECIDED, 1.004, 1.08, "higher", " (higher: +0.4% to +8.0%)");
	/* straddles 1: nothing known */
	check("wall", VERDICT_UNDECIDED, 0.95, 1.05, NULL, "");
	/* decided verdicts say it themselves */
	check("wall", VERDICT_WORSE, 1.05, 1.08, NULL, "");
	check("wall", VERDICT_EQUAL, 0.999, 1.001, NULL, "");
}

/* The confidence level never prints as 100%, however small alpha spending made alpha. */
static void test_ci_level(void **state)
{
	char buf[32];
	UNUSED(state);
	assert_string_equal(report_ci_level(buf, 0.01), "99.00%");
	assert_string_equal(report_ci_level(buf, 0.0009375), "99.91%");
	assert_string_equal(report_ci_level(buf, 4e-5), "99.9960%");
	assert_string_equal(report_ci_level(buf, 6.0e-7), "99.99994%");
	assert_string_equal(report_ci_level(buf, 2.4e-9), "99.99999976%");
	assert_null(strstr(report_ci_level(buf, 1e-14), "100"));
}

static void shift_text(struct strbuf *sb, double shift, double lo, double hi, double alpha,
		       size_t before, size_t after)
{
	struct report_shift s = {shift, lo, hi, alpha, before, after};
	strbuf_reset(sb);
	report_shift_add(sb, &s);
}

/* A change point's shift with its interval, as history and the site print it. */
static void test_shift(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	UNUSED(state);
	shift_text(&sb, -0.284, -0.31, -0.252, 0.01, 30, 30);
	assert_string_equal(sb.buf, "-28.4%, 99.00% CI -31.0% to -25.2%");
	/* below 1%: two decimals, bounds too */
	shift_text(&sb, 0.0098, 0.0098, 0.0098, 0.05, 30, 30);
	assert_string_equal(sb.buf, "+0.98%, 95.00% CI +0.98% to +0.98%");
	/* 0 inside: said, not hidden */
	shift_text(&sb, 0.031, -0.005, 0.06, 0.01, 30, 30);
	assert_string_equal(sb.buf, "+3.1%, 99.00% CI -0.5% to +6.0%, includes 0: size and "
				    "direction unknown");
	shift_text(&sb, 1, -INFINITY, INFINITY, 0.01, 30, 30);
	assert_string_equal(sb.buf, "+100.0%, 99.00% CI -inf% to +inf%, includes 0: size and "
				    "direction unknown");
	/* no interval: the shift alone */
	shift_text(&sb, 0.5, NAN, NAN, 0.01, 30, 30);
	assert_string_equal(sb.buf, "+50.0%");
	/* a short segment: the interval covers less than it says, and the text says so */
	shift_text(&sb, 0.13, 0.089, 0.186, 0.01, 30, 3);
	assert_string_equal(sb.buf, "+13.0%, 99.00% CI +8.9% to +18.6%; 3 commits after: "
				    "coverage below 99.00%");
	shift_text(&sb, 0.13, 0.089, 0.186, 0.05, 4, 5);
	assert_string_equal(sb.buf, "+13.0%, 95.00% CI +8.9% to +18.6%; 4 commits before: "
				    "coverage below 95.00%");
	shift_text(&sb, 0.13, 0.089, 0.186, 0.05, 5, 5);
	assert_string_equal(sb.buf, "+13.0%, 95.00% CI +8.9% to +18.6%");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_direction),
					   cmocka_unit_test(test_ci_level),
					   cmocka_unit_test(test_shift)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
