#ifndef REVPERF_ANALYSIS_BOOTSTRAP_H
#define REVPERF_ANALYSIS_BOOTSTRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The ratio of arithmetic means B/A with a bootstrap interval: the verdict's method for
 * values that can be zero, where logs do not exist (METHODS.md 2.6). The interval is the
 * hull of the percentile bootstrap interval and Student's t interval of ln(ratio) with
 * the delta-method standard error; why both, the resampling count and the measurements
 * are in docs/statistics.md, "Zeros".
 */
struct bootstrap_ratio {
	double ratio;	     /* mean(B) / mean(A) */
	double ci_lo, ci_hi; /* (1 - alpha) interval of the ratio; 0 / INFINITY when unbounded */
	double se;	     /* delta-method standard error of ln(ratio) */
	double df;	     /* degrees of freedom of the t interval (Welch, or n - 1 paired) */
	double p;	     /* two-sided p of ratio = 1, consistent with the interval */
	double p_tost;	     /* equivalence p for (1 / margin, margin); 1 when margin == 1 */
	size_t resamples;    /* B (0 for BOOTSTRAP_STUDENT_ONLY) */
	size_t undefined;    /* resamples whose two means were both 0 (count against both ends) */
};

/* Which intervals make the result: the verdict's, and two for measurements (bench/). */
enum bootstrap_tails {
	BOOTSTRAP_HULL = 0,	   /* percentile bootstrap and Student's t, the wider ends */
	BOOTSTRAP_PERCENTILE_ONLY, /* the percentile bootstrap interval alone */
	BOOTSTRAP_STUDENT_ONLY,	   /* Student's t alone: no resampling */
};

struct bootstrap_opts {
	double alpha;	  /* (1 - alpha) interval, 0 < alpha < 1 */
	double margin;	  /* equivalence margin of p_tost, a ratio >= 1 (1 + tolerance) */
	bool paired;	  /* a[i] and b[i] were measured together: resample the pairs */
	uint64_t seed;	  /* the same data and seed give the same interval */
	size_t resamples; /* B; 0 for bootstrap_resamples(alpha) */
	enum bootstrap_tails tails;
};

/* B at level alpha: ceil(50 / alpha) - 1 (25 resamples beyond each end), within 9999..999999. */
size_t bootstrap_resamples(double alpha);

/*
 * Fills out for baseline a[0..n_a-1] and target b[0..n_b-1] (paired: n_a == n_b). Needs
 * n >= 2 per side, finite values >= 0, both means > 0 and valid opts; returns -1 with an
 * error otherwise. Allocates and frees B doubles; thread-safe.
 */
int bootstrap_ratio_means(const double *a, size_t n_a, const double *b, size_t n_b,
			  const struct bootstrap_opts *opts, struct bootstrap_ratio *out);

/*
 * The relative shift of medians, median(B) / median(A) - 1 (for a change point: A the
 * segment before it, B the one after), with a percentile bootstrap interval: A and B are
 * resampled independently, B times, and the interval is the alpha/2 and 1 - alpha/2
 * quantiles of the resampled shifts, the same quantile rule as bootstrap_ratio_means(),
 * widened to hold the estimate when a skewed resampling distribution leaves it outside.
 * No Student's t: a median has no delta-method standard error worth the name for the
 * few values a segment may have. The bootstrap median of n values cannot leave their
 * range, so for short samples (3 values) the interval is wide and its coverage below
 * 1 - alpha (docs/change-points.md gives the measured coverage).
 */
struct bootstrap_shift {
	double shift;	     /* (median(B) - median(A)) / |median(A)| */
	double ci_lo, ci_hi; /* -INFINITY / INFINITY when unbounded */
	size_t resamples;    /* B */
	size_t undefined;    /* resamples whose median(A*) was 0 (count against both ends) */
};

/*
 * Fills out for A = a[0..n_a-1] and B = b[0..n_b-1], n >= 1 per side, finite values of
 * any sign, median(A) != 0; the (1 - alpha) interval, 0 < alpha < 1, from `resamples`
 * resamples (0 for bootstrap_resamples(alpha)) drawn from seed. Returns -1 with an
 * error otherwise. Allocates and frees B + 2 (n_a + n_b) values; O(B log n + n) time;
 * thread-safe.
 */
int bootstrap_median_shift(const double *a, size_t n_a, const double *b, size_t n_b, double alpha,
			   uint64_t seed, size_t resamples, struct bootstrap_shift *out);

#endif
