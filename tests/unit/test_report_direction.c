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

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_direction),
					   cmocka_unit_test(test_ci_level)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
