/*
 * Unit tests of the verdict (METHODS.md section 2): the three-way decision, values with
 * zeros (ratio of arithmetic means with a bootstrap interval, all-zero sides) and the
 * degenerate cases, the sequential look schedule (including simulations showing that
 * repeated looks keep false worse/better verdicts on A/A data at or below alpha, with and
 * without zeros), and the PeASS steady-state rule.
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
	bool zeros, degenerate;
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
    {"zeros: ratio of means", SIDE(zeros_a), SIDE(fives_b), 1.0, 0.02, LOWER_IS_BETTER,
     VERDICT_WORSE, true, false},
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
    {"all-zero baseline against one: no interval", SIDE(zero), SIDE(one), 1.0, 0.02,
     LOWER_IS_BETTER, VERDICT_UNDECIDED, true, false},
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
		if (r.zeros != c->zeros || r.degenerate != c->degenerate)
			fail_msg("%s: zeros %d degenerate %d, want %d %d", c->name, r.zeros,
				 r.degenerate, c->zeros, c->degenerate);
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
		} else if (c->zeros) {
			assert_true(isnan(r.p_welch)); /* no logs of 0 */
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

/*
 * User CPU seconds of a loop ten times longer (`spin 100000` vs `spin 1000000`), 30
 * interleaved pairs measured on the 2-core VM; the target's 4th run reported 0 s (its
 * time went to another account). With ln(1 + x) in seconds this was `equal` 1.0004
 * [1.0003, 1.0005]: a +60% change hidden below one second.
 */
static const double spin_user_a[] = {
    0.000664, 0.000674, 0.000637, 0.000615, 0.000612, 0.000677, 0.00067,  0.000656,
    0.000744, 0.000716, 0.000753, 0.000632, 0.000616, 0.000603, 0.000648, 0.000657,
    0.000688, 0.000671, 0.000673, 0.000643, 0.000644, 0.000657, 0.000808, 0.000685,
    0.000667, 0.000629, 0.00062,  0.000658, 0.000701, 0.000655};
static const double spin_user_b[] = {
    0.00113,  0.001122, 0.001103, 0.0,	    0.001196, 0.001097, 0.001115, 0.001064,
    0.001061, 0.001098, 0.001053, 0.001052, 0.001097, 0.001118, 0.001105, 0.001086,
    0.00111,  0.001104, 0.001185, 0.001078, 0.001087, 0.001078, 0.001136, 0.001095,
    0.001083, 0.001079, 0.001076, 0.001055, 0.001143, 0.001063};
/* Major-fault-like counts, mostly 0, and ten times as many (other runs, other zeros). */
static const double faults_a[] = {0, 1, 0, 0, 2, 0, 1, 0, 0, 3, 0, 0, 1, 0, 2, 0, 0, 1, 0, 1};
static const double faults_b[] = {10, 0, 20, 10, 0, 30, 0, 10, 10, 0, 20, 0, 10, 30, 0, 10,
				  20, 0, 10, 10};
/* Hyperfine wall times: 15 ms, builds where 3 or 6 of 10 runs measured 0 s, and 1.5 ms. */
static const double hf_15ms[] = {0.0151, 0.0149, 0.0152, 0.0150, 0.0148,
				 0.0153, 0.0150, 0.0151, 0.0149, 0.0150};
static const double hf_3_zeros[] = {0,	    0.0150, 0.0149, 0,	    0.0151,
				    0.0152, 0,	    0.0149, 0.0150, 0.0151};
static const double hf_6_zeros[] = {0, 0.0150, 0, 0, 0.0151, 0, 0, 0.0149, 0, 0.0152};
static const double hf_1ms5[] = {0,	 0.0015, 0.0015, 0,	 0.0016,
				 0.0014, 0,	 0.0015, 0.0015, 0.0016};
/* System CPU seconds in 4 ms ticks, 30 runs: 6 ticks against 26 (two of them 8 ms). */
static const double ticks_a[] = {0,	0, 0.004, 0, 0, 0, 0.004, 0, 0, 0, 0, 0.004, 0, 0, 0,
				 0.004, 0, 0, 0,     0, 0, 0.004, 0, 0, 0, 0, 0.004, 0, 0, 0};
static const double ticks_b[] = {0.004, 0.004, 0,     0.004, 0.008, 0.004, 0.004, 0.004,
				 0,	0.004, 0.004, 0.004, 0.004, 0.008, 0.004, 0.004,
				 0.004, 0.004, 0.004, 0.004, 0,	    0.004, 0.004, 0.004,
				 0.004, 0.004, 0,     0.004, 0.004, 0.004};
/* Rare zeros in a quiet metric: 1 of 30 per side, the same values on both sides. */
static const double rare_a[] = {1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01, 0.99, 1.00,
				1.00, 1.01, 0.99, 0,	1.02, 0.98, 1.00, 1.01, 0.99, 1.00,
				1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01, 0.99, 1.00};
static const double rare_b[] = {1.01, 0.99, 1.00, 1.00, 0.98, 1.02, 1.00, 0.99, 1.01, 1.00,
				1.01, 0.99, 1.00, 1.00, 0.98, 1.02, 0,	  0.99, 1.01, 1.00,
				1.01, 0.99, 1.00, 1.00, 0.98, 1.02, 1.00, 0.99, 1.01, 1.00};

/* Pairs of zeros carry no information: one nonzero pair of five is no exact ratio. */
static const double lone_a[] = {0.819, 0, 0, 0, 0};
static const double lone_b[] = {0.998, 0, 0, 0, 0};
/* A deterministic 5% more in every pair, two pairs of zeros: the ratio is exact. */
static const double prop_a[] = {2, 4, 0, 6, 8, 10, 3, 0, 5, 7};
static const double prop_b[] = {2.1, 4.2, 0, 6.3, 8.4, 10.5, 3.15, 0, 5.25, 7.35};

static const struct zero_case {
	const char *name;
	const double *a;
	size_t n_a;
	const double *b;
	size_t n_b;
	bool swap;	   /* judge the reverse change (b against a) */
	bool paired;	   /* verdict_decide_paired (n_a == n_b) */
	double tolerance;
	enum verdict want;
} zero_cases[] = {
    {"spin user time, 10x the loop", SIDE(spin_user_a), SIDE(spin_user_b), false, false, 0.02,
     VERDICT_WORSE},
    {"spin user time, paired", SIDE(spin_user_a), SIDE(spin_user_b), false, true, 0.02,
     VERDICT_WORSE},
    {"spin user time, reversed", SIDE(spin_user_a), SIDE(spin_user_b), true, true, 0.02,
     VERDICT_BETTER},
    {"fault counts x10", SIDE(faults_a), SIDE(faults_b), false, false, 0.02, VERDICT_WORSE},
    {"fault counts x10, paired", SIDE(faults_a), SIDE(faults_b), false, true, 0.02,
     VERDICT_WORSE},
    {"fault counts /10", SIDE(faults_a), SIDE(faults_b), true, false, 0.02, VERDICT_BETTER},
    {"hyperfine: 1.5 ms with 3 of 10 runs 0 s, then 15 ms", SIDE(hf_1ms5), SIDE(hf_15ms), false,
     false, 0.02, VERDICT_WORSE},
    {"hyperfine: 15 ms, then 1.5 ms with 3 of 10 runs 0 s", SIDE(hf_1ms5), SIDE(hf_15ms), true,
     false, 0.02, VERDICT_BETTER},
    /*
     * 30% less, from zeros alone: 10 runs cannot tell (sd 7 ms around 10.5 ms); the
     * interval is wide, never equal. With 6 of 10 zeros even the bootstrap cannot bound
     * the ratio: a resample of 10 zeros has chance 0.6^10 = 0.6%, above alpha / 2.
     */
    {"hyperfine: 3 of 10 runs 0 s, too few runs to decide", SIDE(hf_15ms), SIDE(hf_3_zeros),
     false, false, 0.02, VERDICT_UNDECIDED},
    {"hyperfine: 6 of 10 runs 0 s, too few runs to decide", SIDE(hf_15ms), SIDE(hf_6_zeros),
     false, false, 0.02, VERDICT_UNDECIDED},
    {"4 ms ticks: mostly 0 against mostly one tick, paired", SIDE(ticks_a), SIDE(ticks_b), false,
     true, 0.02, VERDICT_WORSE},
    {"4 ms ticks, reversed", SIDE(ticks_a), SIDE(ticks_b), true, false, 0.02, VERDICT_BETTER},
    {"one nonzero pair of five", SIDE(lone_a), SIDE(lone_b), false, true, 0.02,
     VERDICT_UNDECIDED},
    {"one nonzero pair of five, identical", SIDE(lone_a), SIDE(lone_a), false, true, 0.02,
     VERDICT_UNDECIDED},
    {"5% more in every pair, pairs of zeros", SIDE(prop_a), SIDE(prop_b), false, true, 0.02,
     VERDICT_WORSE},
    {"5% more in every pair: equal at 6%", SIDE(prop_a), SIDE(prop_b), false, true, 0.06,
     VERDICT_EQUAL},
    {"rare zeros, no change: not decided at 2%", SIDE(rare_a), SIDE(rare_b), false, false, 0.02,
     VERDICT_UNDECIDED},
    {"rare zeros, no change: equal at 25%", SIDE(rare_a), SIDE(rare_b), false, false, 0.25,
     VERDICT_EQUAL},
    {"rare zeros, no change: equal at 25%, paired", SIDE(rare_a), SIDE(rare_b), false, true,
     0.25, VERDICT_EQUAL},
};

/*
 * METHODS.md 2.6: with a 0 anywhere the ratio is that of arithmetic means and its
 * interval a bootstrap, in both directions and for paired and unpaired samples. Plainly
 * different values are never equal, however small the values are in their unit.
 */
static void test_verdict_zeros(void **state)
{
	size_t i;
	UNUSED(state);
	for (i = 0; i < ARRAY_SIZE(zero_cases); i++) {
		const struct zero_case *c = &zero_cases[i];
		struct verdict_opts opts = {
		    .alpha = 0.01 / 8, .tolerance = c->tolerance, .direction = LOWER_IS_BETTER};
		const double *a = c->swap ? c->b : c->a, *b = c->swap ? c->a : c->b;
		size_t n_a = c->swap ? c->n_b : c->n_a, n_b = c->swap ? c->n_a : c->n_b;
		struct verdict_result r, again;
		int rc = c->paired ? verdict_decide_paired(a, b, n_a, &opts, &r)
				   : verdict_decide(a, n_a, b, n_b, &opts, &r);

		assert_int_equal(rc, 0);
		if (r.verdict != c->want)
			fail_msg("%s: got %s, want %s (ratio %.6g, CI [%.6g, %.6g])", c->name,
				 verdict_name(r.verdict), verdict_name(c->want), r.ratio, r.ci_lo,
				 r.ci_hi);
		assert_true(r.zeros && !r.degenerate && r.reason == NULL);
		assert_int_equal(r.method, c->paired ? VERDICT_METHOD_PAIRED_BOOTSTRAP
						     : VERDICT_METHOD_BOOTSTRAP);
		assert_true(r.paired == c->paired);
		/* the ratio of arithmetic means, inside its interval */
		assert_true(fabs(r.ratio / (stats_mean(b, n_b) / stats_mean(a, n_a)) - 1) < 1e-12);
		assert_true(r.ci_lo <= r.ratio && r.ratio <= r.ci_hi);
		assert_true(r.resamples >= 9999);
		assert_true(isnan(r.p_welch) && r.p >= 0 && r.p <= 1);
		/* the p-values agree with the interval */
		if (r.verdict == VERDICT_WORSE || r.verdict == VERDICT_BETTER)
			assert_true(r.p < opts.alpha);
		if (r.verdict == VERDICT_EQUAL)
			assert_true(r.p_tost < opts.alpha);
		/* reproducible: the bootstrap's seed is fixed */
		rc = c->paired ? verdict_decide_paired(a, b, n_a, &opts, &again)
			       : verdict_decide(a, n_a, b, n_b, &opts, &again);
		assert_int_equal(rc, 0);
		assert_memory_equal(&r.ci_lo, &again.ci_lo, sizeof(r.ci_lo));
		assert_memory_equal(&r.ci_hi, &again.ci_hi, sizeof(r.ci_hi));
		assert_true(r.p == again.p && r.p_tost == again.p_tost);
	}
}

/*
 * All-zero sides (METHODS.md 2.6): one side of zeros only is undecided with the reason,
 * whatever the other side holds and in both directions, paired or not; both sides all 0
 * are equal.
 */
static void test_verdict_all_zero(void **state)
{
	static const double zeros5[] = {0, 0, 0, 0, 0}, ms15[] = {0.015, 0.015, 0.015, 0.015, 0.015};
	static const double varied[] = {0.014, 0.016, 0.015, 0.013, 0.017};
	struct verdict_opts opts = {.alpha = 0.01, .tolerance = 0.02};
	struct verdict_result r;
	const double *others[] = {ms15, varied};
	size_t i, paired;
	UNUSED(state);
	for (paired = 0; paired < 2; paired++) {
		for (i = 0; i < ARRAY_SIZE(others); i++) {
			/* target all 0 (hyperfine's 0 s after 15 ms: was `equal`, -1.5%) */
			assert_int_equal(paired ? verdict_decide_paired(others[i], zeros5, 5, &opts, &r)
						: verdict_decide(others[i], 5, zeros5, 5, &opts, &r),
					 0);
			assert_int_equal(r.verdict, VERDICT_UNDECIDED);
			assert_int_equal(r.method, VERDICT_METHOD_NONE);
			assert_true(r.reason && strstr(r.reason, "every target value is 0"));
			assert_true(r.ratio == 0 && r.ci_lo == 0 && isinf(r.ci_hi));
			assert_true(r.zeros && !r.degenerate && r.p_tost == 1);
			assert_true(r.paired == (paired == 1));
			/* baseline all 0 */
			assert_int_equal(paired ? verdict_decide_paired(zeros5, others[i], 5, &opts, &r)
						: verdict_decide(zeros5, 5, others[i], 5, &opts, &r),
					 0);
			assert_int_equal(r.verdict, VERDICT_UNDECIDED);
			assert_int_equal(r.method, VERDICT_METHOD_NONE);
			assert_true(r.reason && strstr(r.reason, "every baseline value is 0"));
			assert_true(isinf(r.ratio) && r.ci_lo == 0 && isinf(r.ci_hi));
		}
		/* both all 0: equal, even with zero tolerance */
		opts.tolerance = 0;
		assert_int_equal(paired ? verdict_decide_paired(zeros5, zeros5, 5, &opts, &r)
					: verdict_decide(zeros5, 5, zeros5, 5, &opts, &r),
				 0);
		assert_int_equal(r.verdict, VERDICT_EQUAL);
		assert_int_equal(r.method, VERDICT_METHOD_EXACT);
		assert_true(r.ratio == 1 && r.ci_lo == 1 && r.ci_hi == 1);
		assert_true(r.zeros && r.degenerate && r.reason == NULL && r.p_tost == 0);
		opts.tolerance = 0.02;
	}
	assert_string_equal(verdict_method_name(VERDICT_METHOD_NONE), "none");
	assert_string_equal(verdict_method_name(VERDICT_METHOD_BOOTSTRAP), "bootstrap");
	assert_string_equal(verdict_method_name(VERDICT_METHOD_PAIRED_BOOTSTRAP),
			    "paired-bootstrap");
	assert_string_equal(verdict_method_name(VERDICT_METHOD_PAIRED_T), "paired-t");
	assert_string_equal(verdict_method_name(VERDICT_METHOD_WELCH), "welch");
	assert_string_equal(verdict_method_name(VERDICT_METHOD_EXACT), "exact");
}

/* A zero-heavy draw: 0 with probability p0, else lognormal around scale (sd 10%). */
static double zero_heavy(struct rng *r, double p0, double scale)
{
	double u = (double)(rng_next(r) >> 11) / 9007199254740992.0;
	return u < p0 ? 0 : scale * exp(0.1 * gaussian(r));
}

/*
 * Random zero-heavy samples (10% to 50% zeros) whose means differ by 10x, seconds in the
 * millisecond range: never equal, and worse (or better, reversed) in nearly every trial.
 */
static void test_verdict_zeros_never_equal(void **state)
{
	struct verdict_opts opts = {.alpha = 0.01, .tolerance = 0.02};
	size_t t, k, n, decided = 0, trials = 200;
	double a[20], b[20];
	struct rng r;
	UNUSED(state);
	rng_seed(&r, 2024);
	for (t = 0; t < trials; t++) {
		struct verdict_result res;
		double p0 = 0.1 + 0.4 * (double)(t % 5) / 4;
		bool reverse = t % 2;

		n = 10 + t % 11;
		for (k = 0; k < n; k++) {
			a[k] = zero_heavy(&r, p0, 0.002);
			b[k] = zero_heavy(&r, p0, 0.020);
		}
		if (reverse ? verdict_decide_paired(b, a, n, &opts, &res)
			    : verdict_decide(a, n, b, n, &opts, &res))
			fail_msg("trial %zu: verdict failed", t);
		if (res.verdict == VERDICT_EQUAL)
			fail_msg("trial %zu: equal for a 10x change (ratio %.4g [%.4g, %.4g])", t,
				 res.ratio, res.ci_lo, res.ci_hi);
		if (res.verdict == (reverse ? VERDICT_BETTER : VERDICT_WORSE))
			decided++;
		else
			assert_int_equal(res.verdict, VERDICT_UNDECIDED);
	}
	print_message("10x change with zeros: %zu of %zu decided, none equal\n", decided, trials);
	assert_true(decided >= trials * 9 / 10);
}

/*
 * METHODS.md 2.4 for values with zeros: sequential A/A comparisons (the same zero-heavy
 * distribution on both sides: 20% zeros, or Poisson-like counts) at the planned per-look
 * alpha stay at or below alpha, paired and unpaired, with zero tolerance.
 */
static void test_zeros_aa_false_rate(void **state)
{
	const double alpha = 0.05;
	const size_t trials = 300;
	struct sequential_plan plan;
	struct verdict_opts opts;
	size_t kind;
	UNUSED(state);
	assert_int_equal(sequential_plan_init(&plan, 5, 30, alpha), 0);
	opts.alpha = plan.alpha_per_look;
	opts.tolerance = 0;
	opts.direction = LOWER_IS_BETTER;
	for (kind = 0; kind < 4; kind++) {
		bool paired = kind & 1, counts = kind & 2;
		size_t t, k, n = 0, false_verdicts = 0;
		double a[64], b[64];
		struct rng r;

		rng_seed(&r, 500 + kind);
		for (t = 0; t < trials; t++) {
			for (k = 0; k < plan.n_looks; k++) {
				struct verdict_result res;
				for (; n < plan.looks[k]; n++) {
					/* paired: a regime shared by both runs of a pair */
					double regime = paired && (rng_next(&r) >> 62) == 0 ? 1.45 : 1;
					if (counts) {
						a[n] = (double)(rng_next(&r) >> 62); /* 0..3 */
						b[n] = (double)(rng_next(&r) >> 62);
					} else {
						a[n] = regime * zero_heavy(&r, 0.2, 0.001);
						b[n] = regime * zero_heavy(&r, 0.2, 0.001);
					}
				}
				assert_int_equal(paired ? verdict_decide_paired(a, b, n, &opts, &res)
							: verdict_decide(a, n, b, n, &opts, &res),
						 0);
				if (res.verdict == VERDICT_WORSE || res.verdict == VERDICT_BETTER) {
					false_verdicts++;
					break;
				}
			}
			n = 0;
		}
		print_message("A/A with zeros (%s, %s): false worse/better rate %.4f\n",
			      paired ? "paired" : "unpaired", counts ? "counts 0..3" : "20% zeros",
			      (double)false_verdicts / (double)trials);
		assert_true((double)false_verdicts / (double)trials <= alpha);
	}
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
	    cmocka_unit_test(test_verdict_zeros),
	    cmocka_unit_test(test_verdict_all_zero),
	    cmocka_unit_test(test_verdict_zeros_never_equal),
	    cmocka_unit_test(test_zeros_aa_false_rate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
