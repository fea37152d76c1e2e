/*
 * Unit tests of the verdict of deterministic counts (METHODS.md section 2, step 7;
 * analysis/verdict_exact.c): exact sides give an exact ratio and its verdict from the
 * tolerance alone; a spread beyond VERDICT_EXACT_SPREAD is not exact; zeros.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "analysis/verdict.h"
#include "util/common.h"

struct exact_case {
	const char *name;
	double a[3], b[3];
	size_t n;
	double tolerance;
	enum direction dir;
	int want_ret; /* 1 exact, 0 not exact */
	enum verdict want;
	double ratio, lo, hi;
};

static const struct exact_case cases[] = {
	/* identical counts: equal, ratio exactly 1 */
	{"a/a", {1e6, 1e6, 1e6}, {1e6, 1e6, 1e6}, 3, 0.001, LOWER_IS_BETTER, 1, VERDICT_EQUAL, 1, 1,
	 1},
	/* +0.2% beyond a 0.1% tolerance: worse, decided with 2 runs */
	{"0.2%", {1e6, 1e6}, {1.002e6, 1.002e6}, 2, 0.001, LOWER_IS_BETTER, 1, VERDICT_WORSE,
	 1.002, 1.002, 1.002},
	/* -1%: better; higher-is-better flips it */
	{"-1%", {1e6, 1e6}, {0.99e6, 0.99e6}, 2, 0.001, LOWER_IS_BETTER, 1, VERDICT_BETTER, 0.99,
	 0.99, 0.99},
	{"-1% hib", {1e6, 1e6}, {0.99e6, 0.99e6}, 2, 0.001, HIGHER_IS_BETTER, 1, VERDICT_WORSE,
	 0.99, 0.99, 0.99},
	/* exactly on the tolerance: equal (bounds included) */
	{"edge", {1000, 1000}, {1001, 1001}, 2, 0.001, LOWER_IS_BETTER, 1, VERDICT_EQUAL, 1.001,
	 1.001, 1.001},
	/* a spread of 0.005% per side is exact; the interval spans min/max to max/min */
	{"tiny spread", {1e6, 1e6 + 50}, {1.01e6, 1.01e6 + 50}, 2, 0.001, LOWER_IS_BETTER, 1,
	 VERDICT_WORSE, (1.01e6 + 25) / (1e6 + 25), 1.01e6 / (1e6 + 50), (1.01e6 + 50) / 1e6},
	/* a spread of 0.5%: not exact, left to the statistics */
	{"spread", {1e6, 1.005e6}, {1e6, 1e6}, 2, 0.001, LOWER_IS_BETTER, 0, VERDICT_UNDECIDED, 0,
	 0, 0},
	/* all zero on both sides: equal; on one side: the other is infinitely worse */
	{"zeros", {0, 0}, {0, 0}, 2, 0.001, LOWER_IS_BETTER, 1, VERDICT_EQUAL, 1, 1, 1},
	{"from zero", {0, 0}, {5, 5}, 2, 0.001, LOWER_IS_BETTER, 1, VERDICT_WORSE, INFINITY,
	 INFINITY, INFINITY},
	{"to zero", {5, 5}, {0, 0}, 2, 0.001, LOWER_IS_BETTER, 1, VERDICT_BETTER, 0, 0, 0},
};

static void test_cases(void **state)
{
	UNUSED(state);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct exact_case *c = &cases[i];
		struct verdict_opts o = {0.01, c->tolerance, c->dir};
		struct verdict_result r = {0};
		int ret = verdict_decide_exact(c->a, c->n, c->b, c->n, &o, &r);
		if (ret != c->want_ret)
			fail_msg("%s: returned %d, want %d", c->name, ret, c->want_ret);
		if (!ret) {
			assert_false(r.exact);
			assert_true(r.spread_a > VERDICT_EXACT_SPREAD ||
				    r.spread_b > VERDICT_EXACT_SPREAD);
			continue;
		}
		if (r.verdict != c->want)
			fail_msg("%s: %s, want %s", c->name, verdict_name(r.verdict),
				 verdict_name(c->want));
		assert_true(r.exact && r.method == VERDICT_METHOD_EXACT);
		assert_true(r.degenerate == (r.spread_a == 0 && r.spread_b == 0));
		if (isinf(c->ratio)) {
			assert_true(isinf(r.ratio));
			continue;
		}
		if (fabs(r.ratio - c->ratio) > 1e-12 || fabs(r.ci_lo - c->lo) > 1e-12 ||
		    fabs(r.ci_hi - c->hi) > 1e-12)
			fail_msg("%s: %.15g [%.15g, %.15g], want %.15g [%.15g, %.15g]", c->name,
				 r.ratio, r.ci_lo, r.ci_hi, c->ratio, c->lo, c->hi);
		assert_true(r.ci_lo <= r.ratio && r.ratio <= r.ci_hi);
	}
}

static void test_spread(void **state)
{
	const double same[] = {7, 7, 7}, zero[] = {0, 0}, one_pct[] = {99, 101};
	UNUSED(state);
	assert_true(verdict_spread(same, 3) == 0);
	assert_true(verdict_spread(zero, 2) == 0);
	assert_true(fabs(verdict_spread(one_pct, 2) - 0.02) < 1e-12);
}

static void test_bad_input(void **state)
{
	const double neg[] = {-1, 1}, nan_[] = {NAN, 1}, ok[] = {1, 1};
	struct verdict_opts o = {0.01, 0.001, LOWER_IS_BETTER};
	struct verdict_result r;
	UNUSED(state);
	assert_int_equal(verdict_decide_exact(neg, 2, ok, 2, &o, &r), -1);
	assert_int_equal(verdict_decide_exact(ok, 2, nan_, 2, &o, &r), -1);
	assert_int_equal(verdict_decide_exact(ok, 0, ok, 2, &o, &r), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_spread),
	    cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
