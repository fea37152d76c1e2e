/*
 * Unit tests of stats_median_ci(): the distribution-free interval of the median. Expected
 * ranks and coverages are exact binomial values (Python: math.comb), the usual table of the
 * sign-test interval (n = 10: x(2)..x(9); n = 20: x(6)..x(15); n = 100: x(40)..x(61)).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/stats.h"
#include "util/common.h"

struct ci_case {
	size_t n;
	double level;
	size_t lo_rank, hi_rank;
	double coverage;
	bool minmax;
};

static const struct ci_case cases[] = {
    {1, 0.95, 1, 1, 0.0, true},
    {2, 0.95, 1, 2, 0.5, true},
    {5, 0.95, 1, 5, 0.9375, true},
    {6, 0.95, 1, 6, 0.96875, false},
    {7, 0.95, 1, 7, 0.984375, false},
    {10, 0.95, 2, 9, 0.978515625, false},
    {20, 0.95, 6, 15, 0.9586105346679688, false},
    {30, 0.95, 10, 21, 0.9572260547429323, false},
    {50, 0.95, 18, 33, 0.9671608624357315, false},
    {100, 0.95, 40, 61, 0.9647997997822952, false},
    {1000, 0.95, 469, 532, 0.9537088026395019, false},
    {10, 0.99, 1, 10, 0.998046875, false},
    {1000, 0.99, 459, 542, 0.9913600509977395, false},
};

/* Values i * 10 for i = n..1 (reversed, so that the function must sort): x_(r) = 10 r. */
static void test_ranks_and_coverage(void **state)
{
	UNUSED(state);
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		const struct ci_case *t = &cases[c];
		double *x = xmallocarray(t->n, sizeof(*x));
		struct stats_median_ci ci;
		for (size_t i = 0; i < t->n; i++)
			x[i] = (double)(t->n - i) * 10;
		assert_int_equal(stats_median_ci(x, t->n, t->level, &ci), 0);
		if (ci.lo_rank != t->lo_rank || ci.minmax != t->minmax)
			fail_msg("n = %zu: ranks %zu..%zu minmax %d, expected %zu..%zu minmax %d",
				 t->n, ci.lo_rank, ci.hi_rank, ci.minmax, t->lo_rank, t->hi_rank,
				 t->minmax);
		assert_int_equal(ci.hi_rank, t->hi_rank);
		assert_true(fabs(ci.coverage - t->coverage) < 1e-12);
		assert_true(ci.lo == 10.0 * (double)t->lo_rank);
		assert_true(ci.hi == 10.0 * (double)t->hi_rank);
		/* numpy.median of 10, 20, ..., 10 n */
		assert_true(fabs(ci.median - 5.0 * (double)(t->n + 1)) < 1e-9);
		free(x);
	}
}

static void test_ties_and_small(void **state)
{
	static const double flat[] = {3, 3, 3, 3, 3, 3, 3};
	static const double four[] = {9, 1, 4, 2};
	struct stats_median_ci ci;
	UNUSED(state);
	assert_int_equal(stats_median_ci(flat, 7, 0.95, &ci), 0);
	assert_true(ci.median == 3 && ci.lo == 3 && ci.hi == 3 && !ci.minmax);
	assert_int_equal(stats_median_ci(four, 4, 0.95, &ci), 0);
	assert_true(ci.median == 3 && ci.lo == 1 && ci.hi == 9 && ci.minmax);
}

static void test_bad_input(void **state)
{
	static const double nan1[] = {1, NAN, 3};
	static const double inf1[] = {1, INFINITY};
	struct stats_median_ci ci;
	UNUSED(state);
	assert_int_equal(stats_median_ci(nan1, 0, 0.95, &ci), -1);
	assert_int_equal(stats_median_ci(nan1, 3, 0.95, &ci), -1);
	assert_int_equal(stats_median_ci(inf1, 2, 0.95, &ci), -1);
	assert_int_equal(stats_median_ci(inf1, 1, 1.0, &ci), -1);
	assert_int_equal(stats_median_ci(inf1, 1, 0.0, &ci), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ranks_and_coverage),
	    cmocka_unit_test(test_ties_and_small),
	    cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
