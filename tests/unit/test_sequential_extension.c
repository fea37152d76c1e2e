/*
 * Sequential sampling past the planned maximum (METHODS.md 2, step 8): the alpha
 * spending schedule, and a simulation of A/A comparisons that keep sampling while a
 * budget allows, showing that the rate of false worse/better verdicts over every look
 * stays at or below alpha.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analysis/verdict.h"
#include "util/rng.h"
#include "util/common.h"

static double uniform(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

/* A run's value: lognormal noise around 1 with sd about 10%. */
static double noisy(struct rng *r)
{
	double u1 = uniform(r), u2 = uniform(r);
	return exp(0.1 * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2));
}

static void test_schedule(void **state)
{
	struct sequential_plan plan;
	double sum = 0;
	UNUSED(state);
	assert_int_equal(sequential_plan_init(&plan, 5, 30, 0.01), 0);
	sequential_plan_extend(&plan, 0.01, SEQUENTIAL_EXTENSION_SHARE);
	sum = plan.alpha_per_look * (double)plan.n_looks;
	for (size_t k = 1; k <= SEQUENTIAL_MAX_EXTENSIONS; k++)
		sum += sequential_extension_alpha(&plan, k);
	assert_true(sum <= 0.01 + 1e-15);
	assert_true(fabs(plan.alpha_per_look * (double)plan.n_looks - 0.0075) < 1e-15);
	assert_true(fabs(sequential_extension_alpha(&plan, 1) - 0.00125) < 1e-15);
	assert_int_equal(sequential_extension_look(30), 38);
	assert_int_equal(sequential_extension_look(38), 48);
}

/*
 * A/A: both sides from the same distribution, interleaved pairs, looks as compare takes
 * them (planned 5..10, then up to SEQUENTIAL_MAX_EXTENSIONS extension looks), the paired
 * verdict at each look's alpha with a tight tolerance so that equal is rare and sampling
 * goes on. Counts comparisons that ever said worse or better.
 */
static void test_aa_false_rate(void **state)
{
	const double alpha = 0.05;
	const size_t trials = 2000, cap = 400;
	struct rng r;
	double *a = malloc(cap * sizeof(*a)), *b = malloc(cap * sizeof(*b));
	size_t false_verdicts = 0, extended = 0;
	UNUSED(state);
	rng_seed(&r, 12345);
	for (size_t t = 0; t < trials; t++) {
		struct sequential_plan plan;
		struct verdict_opts o = {0, 0.005, LOWER_IS_BETTER};
		size_t n = 0, look, k = 0;
		double look_alpha;
		assert_int_equal(sequential_plan_init(&plan, 5, 10, alpha), 0);
		sequential_plan_extend(&plan, alpha, SEQUENTIAL_EXTENSION_SHARE);
		look = plan.looks[0];
		look_alpha = plan.alpha_per_look;
		for (;;) {
			struct verdict_result res;
			while (n < look && n < cap) {
				a[n] = noisy(&r);
				b[n] = noisy(&r);
				n++;
			}
			o.alpha = look_alpha;
			assert_int_equal(verdict_decide_paired(a, b, n, &o, &res), 0);
			if (res.verdict == VERDICT_WORSE || res.verdict == VERDICT_BETTER) {
				false_verdicts++;
				break;
			}
			if (res.verdict == VERDICT_EQUAL)
				break;
			if (n >= 10) {
				if (k == SEQUENTIAL_MAX_EXTENSIONS || n >= cap)
					break;
				look_alpha = sequential_extension_alpha(&plan, ++k);
				look = sequential_extension_look(n);
				extended += k == 1;
			} else {
				look = sequential_next_look(&plan, n + 1);
			}
		}
	}
	free(a);
	free(b);
	/* most comparisons went past the plan, and the false rate stays below alpha */
	assert_true(extended > trials / 2);
	if ((double)false_verdicts / (double)trials > alpha)
		fail_msg("false worse/better in %zu of %zu A/A comparisons (alpha %g)",
			 false_verdicts, trials, alpha);
	print_message("A/A past the plan: %zu false of %zu (%.2f%%), %zu extended\n",
		      false_verdicts, trials, 100.0 * (double)false_verdicts / (double)trials,
		      extended);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_schedule),
	    cmocka_unit_test(test_aa_false_rate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
