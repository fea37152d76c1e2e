/*
 * Unit tests of the verdict (METHODS.md section 2): the three-way decision, the zero-shift
 * and degenerate cases, the sequential look schedule (including a simulation showing
 * that repeated looks keep false worse/better verdicts on A/A data at or below alpha),
 * and the PeASS steady-state rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/stats.h"
#include "analysis/verdict.h"
#include "util/rng.h"
#include "util/common.h"

/* Noise patterns around 1 (sd about 0.25%) and a wide one (about 25%). */
static const double calm_a[] = {1.000, 1.004, 0.997, 1.002, 0.999,
				1.001, 0.998, 1.003, 0.996, 1.000};
static const double calm_b[] = {0.998, 1.003, 1.001, 0.996, 1.002,
				1.000, 1.004, 0.999, 0.997, 1.001};
static const double wide_a[] = {0.70, 1.30, 1.05, 0.85, 1.20, 0.95, 1.25, 0.75};
static const double wide_b[] = {1.15, 0.80, 0.90, 1.35, 0.72, 1.10, 1.00, 1.28};
static const double zeros_a[] = {0, 1, 0, 1, 0, 1, 0, 1};
static const double fives_b[] = {5, 6, 5, 6, 5, 6, 5, 6};
static const double two[] = {2, 2, 2, 2};
static const double three[] = {3, 3, 3};
static const double two_04[] = {2.04, 2.04};
static const double zero[] = {0, 0, 0};
static const double one[] = {1, 1, 1, 1, 1};
/* welch row 0 of tests/data/stats-reference.json, with its SciPy 99% interval */
static const double ref_a[] = {1.0276435550589882, 0.9939260215624605, 1.0321837721003377,
			       1.029200804072545, 0.9959392188775277};
static const double ref_b[] = {1.0661609621624222, 1.037959018146175, 1.0447157776814209,
			       1.0585023957996065, 1.0616224303017818};

#define SIDE(x) x, ARRAY_SIZE(x)

static const struct verdict_case {
	const char *name;
	const double *a;
	size_t n_a;
	const double *b;
	size_t n_b;
	double b_scale; /* b is the pattern times this */
	double tolerance;
	enum direction direction;
	enum verdict want;
	bool shifted, degenerate;
} cases[] = {
    {"clear worse", SIDE(calm_a), SIDE(calm_b), 1.10, 0.02, LOWER_IS_BETTER, VERDICT_WORSE, false,
     false},
    {"clear better", SIDE(calm_a), SIDE(calm_b), 0.90, 0.02, LOWER_IS_BETTER, VERDICT_BETTER, false,
     false},
    {"equal within tolerance", SIDE(calm_a), SIDE(calm_b), 1.003, 0.02, LOWER_IS_BETTER,
     VERDICT_EQUAL, false, false},
    {"shift the size of the tolerance", SIDE(calm_a), SIDE(calm_b), 1.02, 0.02, LOWER_IS_BETTER,
     VERDICT_UNDECIDED, false, false},
    {"undecided, wide noise", SIDE(wide_a), SIDE(wide_b), 1.0, 0.02, LOWER_IS_BETTER,
     VERDICT_UNDECIDED, false, false},
    {"SciPy row: interval straddles 1.02", SIDE(ref_a), SIDE(ref_b), 1.0, 0.02, LOWER_IS_BETTER,
     VERDICT_UNDECIDED, false, false},
    {"higher is better: slower is worse", SIDE(calm_a), SIDE(calm_b), 0.90, 0.02, HIGHER_IS_BETTER,
     VERDICT_WORSE, false, false},
    {"higher is better: faster is better", SIDE(calm_a), SIDE(calm_b), 1.10, 0.02, HIGHER_IS_BETTER,
     VERDICT_BETTER, false, false},
    {"zero tolerance: never equal", SIDE(calm_a), SIDE(calm_b), 1.0, 0, LOWER_IS_BETTER,
     VERDICT_UNDECIDED, false, false},
    {"one side constant", SIDE(one), SIDE(calm_b), 1.0, 0.02, LOWER_IS_BETTER, VERDICT_EQUAL, false,
     false},
    {"zeros: log(x + 1)", SIDE(zeros_a), SIDE(fives_b), 1.0, 0.02, LOWER_IS_BETTER, VERDICT_WORSE,
     true, false},
    {"degenerate equal", SIDE(two), SIDE(two), 1.0, 0.02, LOWER_IS_BETTER, VERDICT_EQUAL, false,
     true},
    {"degenerate worse", SIDE(two), SIDE(three), 1.0, 0.02, LOWER_IS_BETTER, VERDICT_WORSE, false,
     true},
    {"degenerate better, higher is better", SIDE(two), SIDE(three), 1.0, 0.02, HIGHER_IS_BETTER,
     VERDICT_BETTER, false, true},
    {"degenerate exactly at the tolerance", SIDE(two), SIDE(two_04), 1.0, 0.02, LOWER_IS_BETTER,
     VERDICT_EQUAL, false, true},
    {"degenerate zeros", SIDE(zero), SIDE(zero), 1.0, 0.02, LOWER_IS_BETTER, VERDICT_EQUAL, true,
     true},
    {"degenerate zero against one", SIDE(zero), SIDE(one), 1.0, 0.02, LOWER_IS_BETTER,
     VERDICT_WORSE, true, true},
};

static void test_verdict_table(void **state)
{
	size_t i, k;
	UNUSED(state);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct verdict_case *c = &cases[i];
		struct verdict_opts opts = {
		    .alpha = 0.01, .tolerance = c->tolerance, .direction = c->direction};
		struct verdict_result r;
		double b[64];

		assert_true(c->n_b <= ARRAY_SIZE(b));
		for (k = 0; k < c->n_b; k++)
			b[k] = c->b[k] * c->b_scale;
		if (verdict_decide(c->a, c->n_a, b, c->n_b, &opts, &r) != 0)
			fail_msg("%s: verdict_decide failed", c->name);
		if (r.verdict != c->want)
			fail_msg("%s: got %s, want %s (ratio %.6g, CI [%.6g, %.6g])", c->name,
				 verdict_name(r.verdict), verdict_name(c->want), r.ratio, r.ci_lo,
				 r.ci_hi);
		if (r.shifted != c->shifted || r.degenerate != c->degenerate)
			fail_msg("%s: shifted %d degenerate %d, want %d %d", c->name, r.shifted,
				 r.degenerate, c->shifted, c->degenerate);
		assert_int_equal(r.n_a, c->n_a);
		assert_int_equal(r.n_b, c->n_b);
		assert_true(r.ci_lo <= r.ratio && r.ratio <= r.ci_hi);
		assert_true(r.mean_a == stats_mean(c->a, c->n_a));
		assert_true(r.mean_b == stats_mean(b, c->n_b));
		assert_true(r.sd_a == stats_sd(c->a, c->n_a));
		assert_true(r.sd_b == stats_sd(b, c->n_b));
		assert_true(r.p_mw >= 0 && r.p_mw <= 1);
		assert_true(r.p_tost >= 0 && r.p_tost <= 1);
		if (c->degenerate) {
			assert_true(isnan(r.p_welch));
			assert_true(r.ci_lo == r.ratio && r.ci_hi == r.ratio);
			assert_true(r.p_tost == (r.verdict == VERDICT_EQUAL ? 0 : 1));
		} else {
			assert_true(r.p_welch >= 0 && r.p_welch <= 1);
		}
		/* equivalence by TOST at alpha agrees with the interval being inside */
		if (r.verdict == VERDICT_EQUAL && !c->degenerate)
			assert_true(r.p_tost < opts.alpha);
		if (c->tolerance == 0 && !c->degenerate)
			assert_true(r.p_tost == 1);
	}
}

/* The interval is the Welch log interval of stats.c: SciPy's values for the reference row. */
static void test_verdict_matches_reference(void **state)
{
	struct verdict_opts opts = {.alpha = 0.01, .tolerance = 0.02};
	struct verdict_result r;
	UNUSED(state);
	assert_int_equal(verdict_decide(SIDE(ref_a), SIDE(ref_b), &opts, &r), 0);
	assert_true(fabs(r.ratio / 1.0375171999833925 - 1) < 1e-9);
	assert_true(fabs(r.ci_lo / 1.0015491806750978 - 1) < 1e-9);
	assert_true(fabs(r.ci_hi / 1.0747769166320913 - 1) < 1e-9);
	assert_true(fabs(r.p_welch / 0.008195258053492997 - 1) < 1e-9);
	assert_true(fabs(r.p_tost / 0.9347992655199755 - 1) < 1e-9);
	/* NULL options are the defaults: alpha 0.01, 2%, lower is better */
	assert_int_equal(verdict_decide(SIDE(ref_a), SIDE(ref_b), NULL, &r), 0);
	assert_true(fabs(r.ci_lo / 1.0015491806750978 - 1) < 1e-9);
	assert_int_equal(r.verdict, VERDICT_UNDECIDED);
}

static void test_verdict_errors(void **state)
{
	static const double ok[] = {1, 2, 3}, neg[] = {1, -1}, nan2[] = {1, NAN};
	static const double inf2[] = {1, INFINITY};
	struct verdict_opts opts = {.alpha = 0.01, .tolerance = 0.02};
	struct verdict_result r;
	UNUSED(state);
	assert_int_equal(verdict_decide(ok, 1, ok, 3, &opts, &r), -1);
	assert_int_equal(verdict_decide(ok, 3, ok, 1, &opts, &r), -1);
	assert_int_equal(verdict_decide(ok, 0, ok, 0, &opts, &r), -1);
	assert_int_equal(verdict_decide(ok, 3, neg, 2, &opts, &r), -1);
	assert_int_equal(verdict_decide(nan2, 2, ok, 3, &opts, &r), -1);
	assert_int_equal(verdict_decide(ok, 3, inf2, 2, &opts, &r), -1);
	opts.alpha = 0;
	assert_int_equal(verdict_decide(ok, 3, ok, 3, &opts, &r), -1);
	opts.alpha = 0.01;
	opts.tolerance = -0.1;
	assert_int_equal(verdict_decide(ok, 3, ok, 3, &opts, &r), -1);
	assert_string_equal(verdict_name(VERDICT_WORSE), "worse");
	assert_string_equal(verdict_name(VERDICT_BETTER), "better");
	assert_string_equal(verdict_name(VERDICT_EQUAL), "equal");
	assert_string_equal(verdict_name(VERDICT_UNDECIDED), "undecided");
}

static const struct plan_case {
	size_t min_runs, max_runs;
	size_t n_looks;
	size_t looks[16];
} plans[] = {
    {5, 30, 8, {5, 7, 9, 12, 15, 19, 24, 30}},
    {5, 5, 1, {5}},
    {2, 3, 2, {2, 3}},
    {10, 11, 2, {10, 11}},
    {3, 20, 9, {3, 4, 5, 7, 9, 12, 15, 19, 20}},
};

static void test_sequential_plan(void **state)
{
	size_t i, k;
	UNUSED(state);
	for (i = 0; i < ARRAY_SIZE(plans); i++) {
		const struct plan_case *c = &plans[i];
		struct sequential_plan p;

		assert_int_equal(sequential_plan_init(&p, c->min_runs, c->max_runs, 0.01), 0);
		assert_int_equal(p.n_looks, c->n_looks);
		for (k = 0; k < c->n_looks; k++)
			assert_int_equal(p.looks[k], c->looks[k]);
		/* ascending, from min to max, each at least 25% past the previous but the last */
		assert_int_equal(p.looks[0], c->min_runs);
		assert_int_equal(p.looks[p.n_looks - 1], c->max_runs);
		for (k = 1; k < p.n_looks; k++) {
			assert_true(p.looks[k] > p.looks[k - 1]);
			if (k + 1 < p.n_looks)
				assert_true(4 * p.looks[k] >= 5 * p.looks[k - 1]);
		}
		/* Bonferroni: the per-look alphas add up to the overall alpha */
		assert_true(fabs(p.alpha_per_look * (double)p.n_looks - 0.01) < 1e-15);
		assert_int_equal(p.min_runs, c->min_runs);
		assert_int_equal(p.max_runs, c->max_runs);
	}
	{
		struct sequential_plan p;
		assert_int_equal(sequential_plan_init(&p, 5, 30, 0.01), 0);
		assert_int_equal(sequential_next_look(&p, 0), 5);
		assert_int_equal(sequential_next_look(&p, 5), 5);
		assert_int_equal(sequential_next_look(&p, 6), 7);
		assert_int_equal(sequential_next_look(&p, 25), 30);
		assert_int_equal(sequential_next_look(&p, 30), 30);
		assert_int_equal(sequential_next_look(&p, 31), 30);
		assert_int_equal(sequential_plan_init(&p, 1, 30, 0.01), -1);
		assert_int_equal(sequential_plan_init(&p, 10, 9, 0.01), -1);
		assert_int_equal(sequential_plan_init(&p, 5, 30, 0), -1);
		assert_int_equal(sequential_plan_init(&p, 5, 30, 1), -1);
		/* more looks than the plan holds */
		assert_int_equal(sequential_plan_init(&p, 2, SIZE_MAX / 2, 0.01), -1);
	}
}

static double gaussian(struct rng *r)
{
	/* Box-Muller; u1 in (0, 1] so the log is finite */
	double u1 = ((double)(rng_next(r) >> 11) + 1) / 9007199254740992.0;
	double u2 = (double)(rng_next(r) >> 11) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/*
 * Sequential A/A comparisons (the same lognormal distribution on both sides), looking at
 * every point of the plan and stopping at the first worse/better/equal verdict. Returns
 * the share of comparisons that ended in a false worse or better verdict.
 */
static double aa_false_rate(const struct sequential_plan *plan, double alpha_per_look,
			    size_t trials, uint64_t seed)
{
	struct verdict_opts opts = {.alpha = alpha_per_look, .tolerance = 0};
	double a[64], b[64];
	size_t t, k, n = 0, false_verdicts = 0;
	struct rng r;

	rng_seed(&r, seed);
	for (t = 0; t < trials; t++) {
		for (k = 0; k < plan->n_looks; k++) {
			struct verdict_result res;

			for (; n < plan->looks[k]; n++) {
				a[n] = exp(0.05 * gaussian(&r));
				b[n] = exp(0.05 * gaussian(&r));
			}
			assert_int_equal(verdict_decide(a, n, b, n, &opts, &res), 0);
			if (res.verdict == VERDICT_WORSE || res.verdict == VERDICT_BETTER) {
				false_verdicts++;
				break;
			}
		}
		n = 0;
	}
	return (double)false_verdicts / (double)trials;
}

/*
 * METHODS.md 2.4: repeated looks must not inflate false verdicts. With zero tolerance
 * (the hardest case: any significant difference is a verdict) the planned per-look alpha
 * keeps the A/A rate at or below alpha, while spending the full alpha at every look
 * would not. Seeded, so the outcome is fixed.
 */
static void test_sequential_aa_false_rate(void **state)
{
	const double alpha = 0.05;
	const size_t trials = 2000;
	struct sequential_plan plan;
	double planned, naive;
	UNUSED(state);
	assert_int_equal(sequential_plan_init(&plan, 5, 30, alpha), 0);
	planned = aa_false_rate(&plan, plan.alpha_per_look, trials, 42);
	naive = aa_false_rate(&plan, alpha, trials, 42);
	print_message("A/A false worse/better rate: %.4f with the plan, %.4f without\n", planned,
		      naive);
	assert_true(planned <= alpha);
	assert_true(naive > alpha);
}

/*
 * The paired analysis (verdict_decide_paired): runs of a pair share the machine's regime
 * (here a bimodal 1.0x / 1.45x speed, as measured on the 2-core VM), which cancels in the
 * per-pair log ratio. A 10% slowdown with 1% run noise is then decided worse, while the
 * unpaired Welch interval over the same values is too wide to decide.
 */
static void test_paired_cancels_shared_noise(void **state)
{
	struct verdict_opts opts = {.alpha = 0.01 / 8, .tolerance = 0.02};
	struct verdict_result paired, welch;
	double a[12], b[12];
	struct rng r;
	size_t i;
	UNUSED(state);
	rng_seed(&r, 7);
	for (i = 0; i < 12; i++) {
		double regime = (i % 3 == 0) ? 1.45 : 1.0;
		a[i] = 0.130 * regime * exp(0.01 * gaussian(&r));
		b[i] = 0.143 * regime * exp(0.01 * gaussian(&r));
	}
	assert_int_equal(verdict_decide_paired(a, b, 12, &opts, &paired), 0);
	assert_int_equal(verdict_decide(a, 12, b, 12, &opts, &welch), 0);
	assert_true(paired.paired && !welch.paired);
	assert_int_equal(paired.verdict, VERDICT_WORSE);
	assert_int_equal(welch.verdict, VERDICT_UNDECIDED);
	assert_true(paired.ci_lo > 1.02 && paired.ci_hi < 1.2);
	/* the same point estimate: the geometric mean ratio */
	assert_true(fabs(paired.ratio - welch.ratio) < 1e-12);
	assert_true(paired.p < welch.p_welch);
	assert_true(isfinite(paired.p_welch) && isfinite(paired.p_mw));
}

/* The one-sample t test behind the paired interval, on d = 1..5 (hand-computable). */
static void test_one_sample_t(void **state)
{
	const double d[] = {1, 2, 3, 4, 5};
	struct stats_welch_result t;
	double se = sqrt(2.5) / sqrt(5.0), q = stats_t_ppf(0.975, 4), p_tost;
	UNUSED(state);
	assert_int_equal(stats_t_one_sample(d, 5, 0.05, &t), 0);
	assert_true(fabs(t.diff - 3) < 1e-12);
	assert_true(fabs(t.t - 3 / se) < 1e-12);           /* 4.242640687... */
	assert_true(fabs(t.df - 4) < 1e-12);
	assert_true(fabs(q - 2.7764451051977987) < 1e-9); /* scipy.stats.t.ppf(0.975, 4) */
	assert_true(fabs(t.ci_lo - (3 - q * se)) < 1e-12);
	assert_true(fabs(t.ci_hi - (3 + q * se)) < 1e-12);
	assert_true(fabs(t.p - 2 * stats_t_sf(3 / se, 4)) < 1e-15);
	assert_true(t.p > 0.0132 && t.p < 0.0133); /* scipy.stats.ttest_1samp: 0.013236 */
	assert_int_equal(stats_tost_one_sample(d, 5, -10, 10, &p_tost), 0);
	assert_true(p_tost < 0.01);
	assert_int_equal(stats_t_one_sample(d, 1, 0.05, &t), -1);
}

/* Paired A/A: shared regime noise, the planned per-look alpha keeps false verdicts <= alpha. */
static void test_paired_aa_false_rate(void **state)
{
	const double alpha = 0.05;
	struct sequential_plan plan;
	struct verdict_opts opts;
	double a[64], b[64];
	size_t t, k, n = 0, false_verdicts = 0, trials = 2000;
	struct rng r;
	UNUSED(state);
	assert_int_equal(sequential_plan_init(&plan, 5, 30, alpha), 0);
	opts.alpha = plan.alpha_per_look;
	opts.tolerance = 0;
	opts.direction = LOWER_IS_BETTER;
	rng_seed(&r, 99);
	for (t = 0; t < trials; t++) {
		for (k = 0; k < plan.n_looks; k++) {
			struct verdict_result res;
			for (; n < plan.looks[k]; n++) {
				double regime = (rng_next(&r) >> 62) == 0 ? 1.45 : 1.0;
				a[n] = regime * exp(0.03 * gaussian(&r));
				b[n] = regime * exp(0.03 * gaussian(&r));
			}
			assert_int_equal(verdict_decide_paired(a, b, n, &opts, &res), 0);
			if (res.verdict == VERDICT_WORSE || res.verdict == VERDICT_BETTER) {
				false_verdicts++;
				break;
			}
		}
		n = 0;
	}
	print_message("paired A/A false worse/better rate: %.4f\n",
		      (double)false_verdicts / (double)trials);
	assert_true((double)false_verdicts / (double)trials <= alpha);
}

static const struct steady_case {
	const char *name;
	double iters[16];
	size_t n;
	bool want_steady;
	size_t want_first;
	size_t mean_from; /* the value is the mean of iters[mean_from .. mean_to - 1] */
	size_t mean_to;
} steadies[] = {
    {"warm-up then steady",
     {2.0, 1.6, 1.3, 1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0},
     10,
     true,
     3,
     3,
     10},
    {"steady from the start", {5, 5, 5, 5, 5, 5}, 6, true, 0, 0, 6},
    {"never steady", {1, 2, 1, 2, 1, 2, 1, 2}, 8, false, 3, 3, 8},
    {"drifting never settles", {1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8}, 9, false, 4, 4, 9},
    {"fewer than k", {1, 1.001, 1}, 3, false, 0, 0, 3},
};

static void test_steady_state(void **state)
{
	size_t i;
	UNUSED(state);
	for (i = 0; i < ARRAY_SIZE(steadies); i++) {
		const struct steady_case *c = &steadies[i];
		size_t first = 999;
		double value = NAN;
		bool steady = steady_state(c->iters, c->n, 5, 0.02, &first, &value);
		double want = stats_mean(c->iters + c->mean_from, c->mean_to - c->mean_from);

		if (steady != c->want_steady || first != c->want_first)
			fail_msg("%s: steady %d first %zu, want %d %zu", c->name, steady, first,
				 c->want_steady, c->want_first);
		if (fabs(value - want) > 1e-15 * fabs(want))
			fail_msg("%s: value %.17g, want %.17g", c->name, value, want);
	}
	{
		size_t first = 999;
		double value = 0;
		assert_false(steady_state(NULL, 0, 5, 0.02, &first, &value));
		assert_int_equal(first, 0);
		assert_true(isnan(value));
		/* outputs are optional */
		assert_true(steady_state(steadies[1].iters, 6, 5, 0.02, NULL, NULL));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_verdict_table),
	    cmocka_unit_test(test_verdict_matches_reference),
	    cmocka_unit_test(test_verdict_errors),
	    cmocka_unit_test(test_sequential_plan),
	    cmocka_unit_test(test_sequential_aa_false_rate),
	    cmocka_unit_test(test_steady_state),
	    cmocka_unit_test(test_paired_cancels_shared_noise),
	    cmocka_unit_test(test_one_sample_t),
	    cmocka_unit_test(test_paired_aa_false_rate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
