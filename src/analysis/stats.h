#ifndef REVPERF_ANALYSIS_STATS_H
#define REVPERF_ANALYSIS_STATS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Statistics for revperf, hand-written (no statistics library): distributions, the
 * two-sample tests of the verdict, normality, density estimation, correlation and
 * multiple-testing adjustment. Every function reproduces the SciPy (or numpy, statsmodels)
 * function named in its comment; tests/data/stats-reference.json holds reference values.
 * See docs/statistics.md.
 *
 * Conventions, valid for every function below:
 * - input arrays are const and never kept; scratch space is allocated with xmalloc and
 *   freed before returning, so nothing is owned by the caller except what it passed in;
 * - all functions are pure and thread-safe (no global state);
 * - scalar functions of a distribution return NAN on invalid parameters (NaN, df <= 0,
 *   p outside [0, 1]) and print nothing;
 * - functions returning int return 0 on success and -1 after printing one error line
 *   (util/error.h) on invalid input (too few values, NaN, mismatched sizes).
 */

/* ---- Distributions (stats_dist.c) ---- */

/* Standard normal CDF P(Z <= x), accurate in both tails (scipy.stats.norm.cdf). */
double stats_normal_cdf(double x);

/* Standard normal upper tail P(Z > x) without cancellation (scipy.stats.norm.sf). */
double stats_normal_sf(double x);

/*
 * Standard normal quantile (scipy.stats.norm.ppf), Wichura's AS 241 (PPND16), relative
 * error about 1e-16. Returns -INFINITY at p = 0, INFINITY at p = 1.
 */
double stats_normal_ppf(double p);

/* ln B(a, b) for a, b > 0, without the cancellation of lgamma sums for large arguments. */
double stats_lbeta(double a, double b);

/*
 * Regularized incomplete beta function I_x(a, b) (scipy.special.betainc), a, b > 0,
 * 0 <= x <= 1. A continued fraction on whichever side converges (an asymptotic expansion
 * for b = 1/2 and a >= 50, the t distribution with many degrees of freedom), so that a
 * small result keeps its relative accuracy: below 1e-12 relative for b = 1/2 and any a up
 * to 5e5 (checked against mpmath), about 1e-12 elsewhere, degrading to 1e-10 when a and
 * b are both above 1e4 and x is near the centre of the distribution.
 */
double stats_incbeta(double a, double b, double x);

/* Density of Student's t with df > 0 degrees of freedom (df need not be an integer). */
double stats_t_pdf(double t, double df);

/* Student's t CDF P(T <= t) for df > 0 (scipy.stats.t.cdf); t = +-inf allowed. */
double stats_t_cdf(double t, double df);

/* Student's t upper tail P(T > t), computed directly (scipy.stats.t.sf). */
double stats_t_sf(double t, double df);

/*
 * Student's t quantile (scipy.stats.t.ppf) for 0 <= p <= 1 and df > 0: a starting value
 * (closed forms for df 1 and 2, Hill's approximation otherwise) refined by safeguarded
 * Newton steps on log CDF inside a bracket. Relative error well below 1e-10 for df in
 * [1, 1e6] and p in [1e-10, 1 - 1e-10]. Returns exactly 0 at p = 0.5, +-INFINITY at 1, 0.
 */
double stats_t_ppf(double p, double df);

/* ---- Descriptive statistics (stats.c) ---- */

/* Arithmetic mean; NAN when n == 0. */
double stats_mean(const double *x, size_t n);

/* Sample variance (ddof = 1, two-pass); NAN when n < 2. */
double stats_variance(const double *x, size_t n);

/* Sample standard deviation sqrt(stats_variance); NAN when n < 2. */
double stats_sd(const double *x, size_t n);

/*
 * Percentiles with linear interpolation, numpy.percentile(x, q) (method 'linear', the
 * default): for each q[i] in [0, 100], writes out[i]. x need not be sorted (a sorted copy
 * is made). Returns -1 on n == 0, a q outside [0, 100] or a NaN value.
 */
int stats_percentiles(const double *x, size_t n, const double *q, size_t n_q, double *out);

/* One percentile, as stats_percentiles; NAN on invalid input (prints the error). */
double stats_percentile(const double *x, size_t n, double q);

/*
 * Ranks 1..n with ties given their average rank (scipy.stats.rankdata, method 'average').
 * Writes ranks[i] for x[i]. Returns -1 on a NaN value.
 */
int stats_rank_average(const double *x, size_t n, double *ranks);

/* ---- Two-sample tests (stats_tests.c) ---- */

/* Welch's unequal-variance t-test of b - a, and the (1 - alpha) interval of the difference. */
struct stats_welch_result {
	double diff;	     /* mean(b) - mean(a) */
	double se;	     /* sqrt(var_a / n_a + var_b / n_b) */
	double t;	     /* diff / se (+-INFINITY or NAN when se == 0) */
	double df;	     /* Welch-Satterthwaite degrees of freedom (NAN when se == 0) */
	double p;	     /* two-sided p-value (NAN when se == 0) */
	double ci_lo, ci_hi; /* diff -+ t_ppf(1 - alpha/2, df) * se ([diff, diff] if se == 0) */
};

/*
 * scipy.stats.ttest_ind(b, a, equal_var=False) plus the confidence interval of the
 * difference of means. Needs n_a, n_b >= 2, finite values and 0 < alpha < 1.
 */
int stats_welch(const double *a, size_t n_a, const double *b, size_t n_b, double alpha,
		struct stats_welch_result *out);

/*
 * One-sample t test and (1 - alpha) interval of the mean of d (scipy.stats.ttest_1samp(d, 0)):
 * the paired analysis of interleaved pairs, d[i] = ln B_i - ln A_i. Fills out as
 * stats_welch does (diff = mean, se = sd / sqrt(n), df = n - 1); with zero variance t is
 * +-INFINITY or NAN, df and p NAN, the interval [diff, diff]. Returns -1 when n < 2 or a
 * value is not finite, or alpha is outside (0, 1).
 */
int stats_t_one_sample(const double *d, size_t n, double alpha, struct stats_welch_result *out);

/*
 * TOST for the mean of d against the equivalence interval (low, high): max of the two
 * one-sided p-values of the one-sample t test. Zero variance: 0 inside, 1 outside.
 */
int stats_tost_one_sample(const double *d, size_t n, double low, double high, double *p_tost);

/* Welch's test on log values, reported on the ratio scale. */
struct stats_welch_log_result {
	double t, df, p;     /* of the Welch test on ln(b) - ln(a), as stats_welch */
	double ratio;	     /* geometric mean of b / geometric mean of a */
	double ci_lo, ci_hi; /* (1 - alpha) interval of that ratio: exp of the log interval */
};

/*
 * stats_welch on ln(a), ln(b), exponentiated back: the ratio of geometric means B/A and
 * its (1 - alpha) confidence interval. Needs all values > 0 (returns -1 otherwise).
 */
int stats_welch_log(const double *a, size_t n_a, const double *b, size_t n_b, double alpha,
		    struct stats_welch_log_result *out);

/*
 * Two one-sided Welch tests (TOST) for equivalence: H0 diff <= low or diff >= high,
 * diff = mean(b) - mean(a). *p_tost = max of the two one-sided p-values (small means
 * equivalent). With zero standard error, 0 when low < diff < high and 1 otherwise.
 * Needs n_a, n_b >= 2, finite values, low < high.
 */
int stats_tost(const double *a, size_t n_a, const double *b, size_t n_b, double low, double high,
	       double *p_tost);

/*
 * TOST on log values with a ratio margin: bounds -+ln(margin_ratio), i.e. equivalence
 * means the ratio of geometric means lies inside (1/margin_ratio, margin_ratio). Needs
 * values > 0 and margin_ratio > 1.
 */
int stats_tost_log(const double *a, size_t n_a, const double *b, size_t n_b, double margin_ratio,
		   double *p_tost);

struct stats_mw_result {
	double u_a;	     /* U of sample a: pairs (a_i, b_j) with a_i > b_j, ties count 1/2 */
	double p_asymptotic; /* two-sided, normal approximation, tie- and continuity-corrected */
	double p_exact;	     /* two-sided exact p (SciPy method='exact'); NAN when not asked
				for, with ties, or when n_a * n_b > STATS_MW_EXACT_MAX */
	bool ties;	     /* the pooled sample has ties */
};

/* Largest n_a * n_b for which stats_mann_whitney computes the exact distribution. */
#define STATS_MW_EXACT_MAX 10000

/*
 * Mann-Whitney U test, scipy.stats.mannwhitneyu(a, b, alternative='two-sided',
 * use_continuity=True) with method 'asymptotic', and 'exact' too when exact is true (the
 * exact null distribution costs O((n_a n_b)^2 / 4) time, hence the cap). Needs
 * n_a, n_b >= 1 and no NaN. When all values are tied, p_asymptotic is 1.
 */
int stats_mann_whitney(const double *a, size_t n_a, const double *b, size_t n_b, bool exact,
		       struct stats_mw_result *out);

/* ---- Normality, density, correlation (stats_tests.c, stats.c) ---- */

/*
 * Shapiro-Wilk W test, Royston's algorithm AS R94 exactly as scipy.stats.shapiro (1.10)
 * runs it: the sample minus its median, sorted, then single-precision arithmetic like the
 * Fortran original, so that W and p match SciPy's float32 results bit for bit. Needs 3 <= n <= 5000
 * (Royston's range) and finite values; a sample with zero range gives *w = 1, *p = 1 (as SciPy).
 */
int stats_shapiro_wilk(const double *x, size_t n, double *w, double *p);

/* Bandwidth rules of scipy.stats.gaussian_kde. */
enum stats_bw {
	STATS_BW_SCOTT = 0, /* factor n^(-1/5) */
	STATS_BW_SILVERMAN, /* factor (3n/4)^(-1/5) */
};

/* The bandwidth factor of gaussian_kde (kernel sd = factor * sample sd); NAN on n == 0. */
double stats_kde_factor(size_t n, enum stats_bw bw);

/*
 * Gaussian kernel density estimate, scipy.stats.gaussian_kde(x, bw_method).evaluate(grid):
 * writes density[i] at grid[i]. Needs n >= 2, finite values with non-zero variance.
 */
int stats_gaussian_kde(const double *x, size_t n, enum stats_bw bw, const double *grid,
		       size_t n_grid, double *density);

struct stats_linreg {
	double slope, intercept;
	double r; /* Pearson correlation coefficient */
};

/* Least squares y = slope * x + intercept, scipy.stats.linregress. Needs n >= 2, var(x) > 0. */
int stats_linear_regression(const double *x, const double *y, size_t n, struct stats_linreg *out);

/*
 * Spearman rank correlation and its two-sided p-value from the t approximation with n - 2
 * degrees of freedom (scipy.stats.spearmanr). Needs n >= 3 and no NaN; *rho is NAN (and
 * *p NAN) when one variable is constant.
 */
int stats_spearman(const double *x, const double *y, size_t n, double *rho, double *p);

/*
 * Benjamini-Hochberg adjusted p-values (statsmodels multipletests 'fdr_bh',
 * scipy.stats.false_discovery_control): p * n / rank, made monotone from the largest p
 * down, capped at 1; adjusted[i] belongs to p[i]. adjusted may alias p. Needs p in [0, 1].
 */
int stats_benjamini_hochberg(const double *p, size_t n, double *adjusted);

/* ---- The median and its distribution-free interval (stats.c) ---- */

/* The median of a sample and a confidence interval of it that assumes no distribution. */
struct stats_median_ci {
	double median;	 /* numpy.median: the mean of the two middle values when n is even */
	double lo, hi;	 /* the interval: order statistics x_(lo_rank) and x_(hi_rank) */
	size_t lo_rank, hi_rank; /* 1-based ranks in the sorted sample, hi_rank = n + 1 - lo_rank */
	double coverage; /* the exact coverage, 1 - 2 P(B <= lo_rank - 1), B ~ Binomial(n, 1/2) */
	bool minmax;	 /* the sample is too small for `level`: the interval is min..max and
			    its coverage is below level (n < 6 for 95%) */
};

/*
 * The median of x and the distribution-free confidence interval of the median from order
 * statistics (the interval of the sign test, no SciPy counterpart; the tests check exact
 * binomial values): [x_(k), x_(n+1-k)] with the largest k >= 1 such that the coverage
 * 1 - 2 P(B <= k - 1), B ~ Binomial(n, 1/2), is at least level. When even k = 1 falls
 * short (n < 6 for level 0.95) the interval is min..max, out->minmax is set and
 * out->coverage says what it is. Ties and any distribution are fine: the coverage holds
 * for any continuous distribution and is conservative with ties.
 * Returns 0, or -1 after error() for n == 0, a value that is not finite or a level
 * outside (0, 1).
 */
int stats_median_ci(const double *x, size_t n, double level, struct stats_median_ci *out);

#endif
