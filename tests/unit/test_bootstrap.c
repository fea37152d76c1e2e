/*
 * Unit tests of the ratio of arithmetic means with a bootstrap interval
 * (src/analysis/bootstrap.c, METHODS.md 2.6): the resampling count, the delta-method
 * standard error and degrees of freedom on hand-computed examples, the hull of the two
 * intervals, resamples without a ratio, p-values that agree with the interval,
 * reproducibility from the seed, and bad input.
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

#include "analysis/bootstrap.h"
#include "analysis/stats.h"
#include "util/common.h"

static int run(const double *a, size_t n_a, const double *b, size_t n_b, bool paired,
	       double alpha, enum bootstrap_tails tails, struct bootstrap_ratio *out)
{
	struct bootstrap_opts o = {.alpha = alpha,
				   .margin = 1.02,
				   .paired = paired,
				   .seed = 42,
				   .tails = tails};
	return bootstrap_ratio_means(a, n_a, b, n_b, &o, out);
}

static void test_resamples(void **state)
{
	UNUSED(state);
	assert_int_equal(bootstrap_resamples(0.5), 9999);
	assert_int_equal(bootstrap_resamples(0.01), 9999);	 /* 4999 is below the minimum */
	assert_int_equal(bootstrap_resamples(0.005), 9999);	 /* exactly 50 / alpha - 1 */
	assert_int_equal(bootstrap_resamples(0.01 / 8), 39999); /* compare's default per look */
	assert_int_equal(bootstrap_resamples(1e-6), 999999);	 /* capped */
}

/*
 * a = 1, 2, 3 and b = 2, 4, 6: ratio 2; var_a = 1, var_b = 4, so v_a = 1 / (3 * 2^2) and
 * v_b = 4 / (3 * 4^2) are both 1/12: se = sqrt(1/6), Welch df = (1/6)^2 / (2 (1/12)^2 / 2) = 4.
 * Student's t alone is exp(ln 2 -+ t(0.975, 4) se).
 */
static void test_student_by_hand(void **state)
{
	static const double a[] = {1, 2, 3}, b[] = {2, 4, 6};
	struct bootstrap_ratio r;
	double q = stats_t_ppf(0.975, 4), se = sqrt(1.0 / 6);
	UNUSED(state);
	assert_int_equal(run(a, 3, b, 3, false, 0.05, BOOTSTRAP_STUDENT_ONLY, &r), 0);
	assert_true(r.ratio == 2);
	assert_true(fabs(r.se - se) < 1e-15);
	assert_true(fabs(r.df - 4) < 1e-12);
	assert_true(fabs(r.ci_lo - 2 * exp(-q * se)) < 1e-12);
	assert_true(fabs(r.ci_hi - 2 * exp(q * se)) < 1e-12);
	assert_true(fabs(r.p - 2 * stats_t_sf(log(2) / se, 4)) < 1e-15);
	assert_int_equal(r.resamples, 0);
	/* one side constant: the other side's n - 1 degrees of freedom */
	{
		static const double c[] = {2, 2, 2, 2, 2};
		assert_int_equal(run(c, 5, b, 3, false, 0.05, BOOTSTRAP_STUDENT_ONLY, &r), 0);
		assert_true(fabs(r.df - 2) < 1e-12);
		assert_true(fabs(r.se - sqrt(4.0 / (3 * 16))) < 1e-15);
	}
}

/*
 * Paired: se^2 = var(u) / n with u_i = b_i / mean_b - a_i / mean_a (two passes here, one
 * formula in the code), df = n - 1.
 */
static void test_paired_by_hand(void **state)
{
	static const double a[] = {1, 2, 3, 4, 0}, b[] = {2.2, 3.9, 6.1, 8.4, 0.3};
	double ma = stats_mean(a, 5), mb = stats_mean(b, 5), u[5];
	struct bootstrap_ratio r;
	size_t i;
	UNUSED(state);
	for (i = 0; i < 5; i++)
		u[i] = b[i] / mb - a[i] / ma;
	assert_int_equal(run(a, 5, b, 5, true, 0.05, BOOTSTRAP_STUDENT_ONLY, &r), 0);
	assert_true(fabs(r.ratio - mb / ma) < 1e-15);
	assert_true(fabs(r.se - stats_sd(u, 5) / sqrt(5)) < 1e-14);
	assert_true(r.df == 4);
}

/* The verdict's interval is the hull of the percentile interval and Student's t. */
static void test_hull(void **state)
{
	static const double a[] = {0, 1.1, 0.9, 1.0, 0, 1.2, 0.8, 1.0, 1.1, 0.9, 0, 1.0};
	static const double b[] = {2.0, 0, 2.4, 1.8, 2.1, 0, 2.2, 1.9, 2.0, 2.3, 0, 1.7};
	struct bootstrap_ratio hull, pct, t;
	size_t paired;
	UNUSED(state);
	for (paired = 0; paired < 2; paired++) {
		assert_int_equal(run(a, 12, b, 12, paired, 0.01, BOOTSTRAP_HULL, &hull), 0);
		assert_int_equal(run(a, 12, b, 12, paired, 0.01, BOOTSTRAP_PERCENTILE_ONLY, &pct), 0);
		assert_int_equal(run(a, 12, b, 12, paired, 0.01, BOOTSTRAP_STUDENT_ONLY, &t), 0);
		assert_true(hull.ci_lo == fmin(pct.ci_lo, t.ci_lo));
		assert_true(hull.ci_hi == fmax(pct.ci_hi, t.ci_hi));
		assert_true(hull.ci_lo < hull.ratio && hull.ratio < hull.ci_hi);
		assert_true(hull.p >= fmax(pct.p, t.p) - 1e-15);
		assert_int_equal(hull.resamples, 9999);
		assert_int_equal(hull.undefined, 0);
		/* the percentile interval is of resampled ratios of means */
		assert_true(pct.ci_lo > 0 && pct.ci_lo < pct.ratio && pct.ratio < pct.ci_hi);
		print_message("%s: ratio %.4f, percentile [%.4f, %.4f], t [%.4f, %.4f]\n",
			      paired ? "paired" : "unpaired", hull.ratio, pct.ci_lo, pct.ci_hi,
			      t.ci_lo, t.ci_hi);
	}
}

/*
 * A resample whose two means are 0 has no ratio and counts against both ends: with one
 * nonzero pair of five, a third of the resamples miss it, so nothing bounds the ratio,
 * although Student's t (every nonzero pair agrees exactly) says [1, 1].
 */
static void test_undefined_resamples(void **state)
{
	static const double a[] = {0.8, 0, 0, 0, 0}, b[] = {0.8, 0, 0, 0, 0};
	struct bootstrap_ratio r;
	UNUSED(state);
	assert_int_equal(run(a, 5, b, 5, true, 0.01, BOOTSTRAP_HULL, &r), 0);
	assert_true(r.se == 0 && r.ratio == 1);
	assert_true(r.undefined > 2800 && r.undefined < 3800); /* 0.8^5 = 0.33 of 9999 */
	assert_true(r.ci_lo == 0 && isinf(r.ci_hi));
	/* equivalence is not shown either: the undefined third stands against it */
	assert_true(r.p == 1 && r.p_tost > 0.3);
	/* b = 1.05 a in every pair, two pairs of zeros: every resample gives 1.05 (to rounding) */
	{
		static const double c[] = {2, 4, 0, 6, 8, 10, 3, 0, 5, 7};
		double d[10];
		size_t i;
		for (i = 0; i < 10; i++)
			d[i] = 1.05 * c[i];
		assert_int_equal(run(c, 10, d, 10, true, 0.01, BOOTSTRAP_HULL, &r), 0);
		assert_true(fabs(r.ratio - 1.05) < 1e-12);
		assert_true(r.ci_hi - r.ci_lo < 1e-12 && r.ci_lo <= r.ratio && r.ratio <= r.ci_hi);
		assert_true(r.p < 0.001);
	}
}

/* p-values agree with the interval: 1 outside the (1 - alpha) interval iff p < alpha. */
static void test_p_agrees_with_interval(void **state)
{
	static const double a[] = {0, 1.0, 1.1, 0.9, 1.0, 0, 1.2, 0.8, 1.0, 1.1};
	double b[10];
	static const double scales[] = {0.2, 0.5, 0.7, 0.9, 1.0, 1.1, 1.4, 2, 5};
	size_t i, k, paired;
	UNUSED(state);
	for (i = 0; i < ARRAY_SIZE(scales); i++) {
		for (paired = 0; paired < 2; paired++) {
			struct bootstrap_ratio r;
			for (k = 0; k < 10; k++)
				b[k] = scales[i] * a[(k + 3) % 10];
			assert_int_equal(run(a, 10, b, 10, paired, 0.05, BOOTSTRAP_HULL, &r), 0);
			if (r.ci_lo > 1 || r.ci_hi < 1)
				assert_true(r.p <= 0.05);
			else
				assert_true(r.p >= 0.05 - 1e-3);
			/* inside (1/1.02, 1.02) would make p_tost small; nothing here is */
			assert_true(r.p_tost >= 0.05);
		}
	}
}

/* The same data and seed give the same interval, bit for bit. */
static void test_reproducible(void **state)
{
	static const double a[] = {0, 3, 1, 0, 2, 5, 0, 1}, b[] = {1, 0, 4, 6, 0, 2, 3, 0};
	struct bootstrap_opts o = {.alpha = 0.01, .margin = 1.02, .seed = 7};
	struct bootstrap_ratio r1, r2;
	UNUSED(state);
	assert_int_equal(bootstrap_ratio_means(a, 8, b, 8, &o, &r1), 0);
	assert_int_equal(bootstrap_ratio_means(a, 8, b, 8, &o, &r2), 0);
	assert_memory_equal(&r1, &r2, sizeof(r1));
	o.resamples = 2000;
	assert_int_equal(bootstrap_ratio_means(a, 8, b, 8, &o, &r1), 0);
	assert_int_equal(r1.resamples, 2000);
}

static void test_errors(void **state)
{
	static const double ok[] = {1, 2, 3}, zeros[] = {0, 0, 0}, neg[] = {1, -1};
	static const double nan2[] = {1, NAN};
	struct bootstrap_opts o = {.alpha = 0.01, .margin = 1.02};
	struct bootstrap_ratio r;
	UNUSED(state);
	assert_int_equal(bootstrap_ratio_means(ok, 3, zeros, 3, &o, &r), -1); /* mean 0 */
	assert_int_equal(bootstrap_ratio_means(zeros, 3, ok, 3, &o, &r), -1);
	assert_int_equal(bootstrap_ratio_means(ok, 1, ok, 3, &o, &r), -1);
	assert_int_equal(bootstrap_ratio_means(ok, 3, neg, 2, &o, &r), -1);
	assert_int_equal(bootstrap_ratio_means(nan2, 2, ok, 3, &o, &r), -1);
	o.paired = true;
	assert_int_equal(bootstrap_ratio_means(ok, 3, ok, 2, &o, &r), -1);
	o.paired = false;
	o.alpha = 1;
	assert_int_equal(bootstrap_ratio_means(ok, 3, ok, 3, &o, &r), -1);
	o.alpha = 0.01;
	o.margin = 0.9;
	assert_int_equal(bootstrap_ratio_means(ok, 3, ok, 3, &o, &r), -1);
	o.margin = 1;
	o.resamples = 2000000;
	assert_int_equal(bootstrap_ratio_means(ok, 3, ok, 3, &o, &r), -1);
	o.resamples = 0;
	assert_int_equal(bootstrap_ratio_means(ok, 3, ok, 3, &o, &r), 0);
	assert_true(r.p_tost == 1); /* margin 1: nothing is equivalent */
}

/*
 * The shift of medians (change points): by hand. Constant sides are exact. With three
 * values a side each extreme median has probability 7/27 (two or three of the three draws
 * at it), so a pair of extremes, (7/27)^2 = 6.7%, is more than the 0.5% of a tail: the 99%
 * interval spans everything the resampled medians (1..3 before, 2..6 after) can give,
 * (2 - 3) / 3 = -1/3 to (6 - 1) / 1 = 5. Wide, as a segment of 3 commits must be.
 */
static void test_median_shift_by_hand(void **state)
{
	static const double ones[] = {1, 1, 1}, twos[] = {2, 2, 2, 2};
	static const double a[] = {3, 1, 2}, b[] = {6, 2, 4};
	struct bootstrap_shift s, s2;
	UNUSED(state);
	assert_int_equal(bootstrap_median_shift(ones, 3, twos, 4, 0.01, 1, 0, &s), 0);
	assert_true(s.shift == 1 && s.ci_lo == 1 && s.ci_hi == 1);
	assert_int_equal(s.resamples, 9999);
	assert_int_equal(bootstrap_median_shift(a, 3, b, 3, 0.01, 1, 0, &s), 0);
	assert_true(s.shift == 1);
	assert_true(fabs(s.ci_lo - (2.0 - 3.0) / 3.0) < 1e-15);
	assert_true(s.ci_hi == 5);
	/* even sizes: the median of {1, 2, 3, 4} is 2.5, as stats_percentile() */
	{
		static const double e[] = {4, 1, 3, 2}, f[] = {5, 5, 5, 5};
		assert_int_equal(bootstrap_median_shift(e, 4, f, 4, 0.05, 3, 0, &s), 0);
		assert_true(s.shift == 1);
		assert_true(s.ci_lo <= s.shift && s.shift <= s.ci_hi);
		assert_true(s.ci_lo == 5.0 / 4 - 1 && s.ci_hi == 5.0 / 1 - 1); /* the range */
	}
	/* negative values: relative to |median before| */
	{
		static const double n1[] = {-2, -2, -2}, n2[] = {-1, -1, -1};
		assert_int_equal(bootstrap_median_shift(n1, 3, n2, 3, 0.01, 1, 0, &s), 0);
		assert_true(s.shift == 0.5 && s.ci_lo == 0.5 && s.ci_hi == 0.5);
	}
	/* the same seed, the same interval; another seed, resamples of its own */
	assert_int_equal(bootstrap_median_shift(a, 3, b, 3, 0.01, 1, 500, &s), 0);
	assert_int_equal(bootstrap_median_shift(a, 3, b, 3, 0.01, 1, 500, &s2), 0);
	assert_memory_equal(&s, &s2, sizeof(s));
	assert_int_equal(s.resamples, 500);
}

/*
 * A resample whose median before is 0 has no shift and counts against both ends: {0, 1, 1}
 * has a resampled median of 0 in 7/27 of the resamples, far more than 0.5%: unbounded.
 * {0, 0, 1} has median 0 itself: refused.
 */
static void test_median_shift_undefined(void **state)
{
	static const double a[] = {0, 1, 1}, b[] = {2, 2, 2}, z[] = {0, 0, 1};
	static const double nan2[] = {1, NAN};
	struct bootstrap_shift s;
	UNUSED(state);
	assert_int_equal(bootstrap_median_shift(a, 3, b, 3, 0.01, 1, 0, &s), 0);
	assert_true(s.shift == 1);
	assert_true(s.ci_lo == -INFINITY && s.ci_hi == INFINITY);
	assert_true(s.undefined > 9999 / 5);
	assert_int_equal(bootstrap_median_shift(z, 3, b, 3, 0.01, 1, 0, &s), -1);
	assert_int_equal(bootstrap_median_shift(nan2, 2, b, 3, 0.01, 1, 0, &s), -1);
	assert_int_equal(bootstrap_median_shift(b, 0, b, 3, 0.01, 1, 0, &s), -1);
	assert_int_equal(bootstrap_median_shift(b, 3, b, 3, 0, 1, 0, &s), -1);
	assert_int_equal(bootstrap_median_shift(b, 3, b, 3, 0.01, 1, 2000000, &s), -1);
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/*
 * The exact bootstrap distribution of the median of x[0..n): all n^n resamples, counted.
 * vals[0..*k) are the distinct medians, probs their probabilities.
 */
static void exact_medians(const double *x, size_t n, double *vals, double *probs, size_t *k)
{
	size_t idx[8] = {0}, total = 1, nk = 0;
	for (size_t i = 0; i < n; i++)
		total *= n;
	for (size_t r = 0; r < total; r++) {
		double v[8], med;
		size_t j;
		for (size_t i = 0; i < n; i++)
			v[i] = x[idx[i]];
		qsort(v, n, sizeof(v[0]), cmp_dbl);
		med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
		for (j = 0; j < nk && vals[j] != med; j++)
			;
		if (j == nk) {
			vals[nk] = med;
			probs[nk++] = 0;
		}
		probs[j] += 1.0 / (double)total;
		for (size_t i = 0; i < n && ++idx[i] == n; i++) /* the next sequence */
			idx[i] = 0;
	}
	*k = nk;
}

/*
 * The resampled medians are drawn from their exact distribution (bootstrap.c), not by
 * drawing n values: checked against every resample of samples of 1 to 6 values, odd and
 * even. With B = 99,999 the interval's ends are the alpha/2 quantiles of the resampled
 * shift 64 / median* - 1 (the target constant), to within the Monte Carlo error (sd 0.16%
 * at most); every quantile from 1% to 99% is compared where the exact distribution does
 * not put it within 1% of a jump.
 */
static void test_median_shift_exact_distribution(void **state)
{
	static const double x[] = {1, 2, 4, 8, 16, 32}, c[] = {64, 64};
	UNUSED(state);
	for (size_t n = 1; n <= 6; n++) {
		double vals[64], probs[64], sh[64], cum[64], shift;
		size_t k, order[64], compared = 0;
		exact_medians(x, n, vals, probs, &k);
		/* the shifts in ascending order, with their cumulative probabilities */
		for (size_t i = 0; i < k; i++)
			order[i] = i;
		for (size_t i = 0; i < k; i++)
			for (size_t j = i + 1; j < k; j++)
				if (64 / vals[order[j]] < 64 / vals[order[i]]) {
					size_t t = order[i];
					order[i] = order[j];
					order[j] = t;
				}
		for (size_t i = 0; i < k; i++) {
			sh[i] = 64 / vals[order[i]] - 1;
			cum[i] = probs[order[i]] + (i ? cum[i - 1] : 0);
		}
		shift = 64 / (n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2) - 1; /* sorted */
		for (double alpha = 0.02; alpha < 0.99; alpha += 0.04) {
			struct bootstrap_shift s;
			size_t b = 99999, kk = (size_t)floor((double)(b + 1) * alpha / 2);
			double t[2] = {(double)kk / (double)b, (double)(b + 1 - kk) / (double)b};
			assert_int_equal(bootstrap_median_shift(x, n, c, 2, alpha, 5, b, &s), 0);
			assert_true(s.shift == shift);
			for (int end = 0; end < 2; end++) {
				size_t i = 0;
				double want;
				while (i + 1 < k && cum[i] < t[end])
					i++;
				if (cum[i] - t[end] < 0.01 || (i && t[end] - cum[i - 1] < 0.01))
					continue; /* too near a jump for B resamples to say */
				want = end ? fmax(sh[i], shift) : fmin(sh[i], shift);
				if ((end ? s.ci_hi : s.ci_lo) != want)
					fail_msg("n %zu, alpha %.2f, %s end: %g, want %g", n, alpha,
						 end ? "upper" : "lower", end ? s.ci_hi : s.ci_lo,
						 want);
				compared++;
			}
		}
		print_message("n = %zu: %zu distinct medians, %zu ends compared\n", n, k, compared);
		assert_true(n == 1 || compared >= 10);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_resamples),
	    cmocka_unit_test(test_student_by_hand),
	    cmocka_unit_test(test_paired_by_hand),
	    cmocka_unit_test(test_hull),
	    cmocka_unit_test(test_undefined_resamples),
	    cmocka_unit_test(test_p_agrees_with_interval),
	    cmocka_unit_test(test_reproducible),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_median_shift_by_hand),
	    cmocka_unit_test(test_median_shift_undefined),
	    cmocka_unit_test(test_median_shift_exact_distribution),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
