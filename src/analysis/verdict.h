#ifndef REVPERF_ANALYSIS_VERDICT_H
#define REVPERF_ANALYSIS_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

/* The agnostic three-way verdict of METHODS.md section 2 (plus undecided). */
enum verdict {
	VERDICT_UNDECIDED = 0,
	VERDICT_EQUAL,
	VERDICT_WORSE,
	VERDICT_BETTER,
};

enum direction {
	LOWER_IS_BETTER = 0, /* times, sizes, counts */
	HIGHER_IS_BETTER,    /* throughput */
};

struct verdict_opts {
	double alpha;     /* CI is (1 - alpha); default 0.01 */
	double tolerance; /* delta, e.g. 0.02 for 2% */
	enum direction direction;
};

/* How the interval behind a verdict was computed (docs/statistics.md section 5). */
enum verdict_method {
	VERDICT_METHOD_WELCH = 0,	  /* Welch interval on log values (unpaired) */
	VERDICT_METHOD_PAIRED_T,	  /* one-sample t interval of per-pair log ratios */
	VERDICT_METHOD_EXACT,		  /* no variance on either side: the ratio is exact */
	VERDICT_METHOD_BOOTSTRAP,	  /* zeros: ratio of arithmetic means, bootstrap */
	VERDICT_METHOD_PAIRED_BOOTSTRAP, /* the same, resampling the interleaved pairs */
	VERDICT_METHOD_NONE,		  /* one side all 0: no interval; see reason */
};

struct verdict_result {
	enum verdict verdict;
	enum verdict_method method;
	size_t n_a, n_b;
	double ratio;	     /* geometric mean B / A; arithmetic mean B / A when zeros */
	double ci_lo, ci_hi; /* (1 - alpha) interval of the ratio (by method) */
	bool paired;	     /* decided by verdict_decide_paired (method paired, or exact/none) */
	double p;	     /* two-sided p of the test behind the CI: paired t, Welch or bootstrap */
	double p_welch;	     /* two-sided Welch p on log values (NAN when degenerate or zeros) */
	double p_mw;	     /* Mann-Whitney U two-sided p (asymptotic, tie- and continuity-corrected) */
	double p_tost;	     /* equivalence p with margin 1+tolerance, from the same statistic */
	double mean_a, mean_b; /* arithmetic means of the raw values */
	double sd_a, sd_b;     /* sample standard deviations of the raw values */
	bool zeros;	 /* a value was 0: no logs; the ratio of arithmetic means decides */
	bool degenerate; /* zero variance on both sides: decided from the exact ratio */
	bool exact;	 /* a count whose runs agreed on each side (verdict_decide_exact) */
	double spread_a, spread_b; /* (max - min) / mean of each side; NAN when not computed */
	size_t resamples; /* bootstrap resamples behind the interval (0 for the other methods) */
	const char *reason; /* why undecided without an interval (a side all 0), else NULL;
			       a static string */
};

/*
 * Decides B (target) against A (baseline). Needs n_a >= 2 and n_b >= 2 (returns -1 with
 * an error otherwise) and finite values >= 0. With a 0 anywhere, METHODS.md 2.6: the ratio
 * of arithmetic means with a bootstrap interval; a side of zeros only is undecided (with
 * a reason), both sides all 0 are equal. No allocation visible to the caller, thread-safe;
 * deterministic (the bootstrap's seed is fixed).
 */
int verdict_decide(const double *a, size_t n_a, const double *b, size_t n_b,
		   const struct verdict_opts *opts, struct verdict_result *out);

/*
 * The same decision for n interleaved pairs (a[i], b[i]) measured back to back: the CI of
 * the ratio is the one-sample t interval of the mean of d[i] = ln b[i] - ln a[i],
 * exponentiated (with zeros: the bootstrap resamples pairs). Noise shared by the two runs
 * of a pair (machine regimes, drift) cancels in d, which the unpaired Welch interval
 * cannot exploit. Welch, Mann-Whitney and the means/sds are still computed on the same
 * values for reporting. Needs n >= 2. Thread-safe.
 */
int verdict_decide_paired(const double *a, const double *b, size_t n,
			  const struct verdict_opts *opts, struct verdict_result *out);

/* "welch", "paired-t", "exact", "bootstrap", "paired-bootstrap", "none". */
const char *verdict_method_name(enum verdict_method m);

/* "worse", "better", "equal", "undecided". */
const char *verdict_name(enum verdict v);

/*
 * Sequential sampling with repeated looks (METHODS.md 2.4). Looks happen at n = min_runs
 * and then whenever n has grown by at least 25% since the previous look (and at max_runs);
 * each look uses alpha / number_of_looks (Bonferroni), so that the chance of any false
 * worse/better verdict over all looks stays at or below alpha.
 */
struct sequential_plan {
	size_t min_runs, max_runs;
	size_t n_looks;
	size_t looks[64]; /* the sample sizes (per side) at which to look, ascending */
	double alpha_per_look;
	/* Past max_runs (sequential_plan_extend()): the alpha left for extension looks. */
	double alpha_extension;
};

/* Fills plan for min..max runs per side and overall alpha. Returns -1 on min<2 or max<min. */
int sequential_plan_init(struct sequential_plan *plan, size_t min_runs, size_t max_runs,
			 double alpha);
/* The smallest look >= n (max_runs when n is past every look). */
size_t sequential_next_look(const struct sequential_plan *plan, size_t n);

/*
 * Continuing past max_runs while a time budget allows (METHODS.md 2, step 8;
 * docs/statistics.md): alpha spending. The planned looks keep (1 - share) of alpha, split
 * evenly; extension look k = 1, 2, ... spends share x alpha x 2^-k, so the sum over every
 * look, however many extension looks there are, stays at or below alpha (Bonferroni).
 * Call after sequential_plan_init(); share in (0, 1).
 */
#define SEQUENTIAL_EXTENSION_SHARE 0.25
#define SEQUENTIAL_MAX_EXTENSIONS 20
void sequential_plan_extend(struct sequential_plan *plan, double alpha, double share);
/* The alpha of extension look k >= 1. */
double sequential_extension_alpha(const struct sequential_plan *plan, size_t k);
/* The sample size per side of the extension look after one at n: n grown by 25%. */
size_t sequential_extension_look(size_t n);

/*
 * PeASS steady state for in-process iterations: the first index s such that the
 * coefficient of variation (sd/mean, sample sd) of iters[s..s+k-1] is below cv_max.
 * On success *value = mean of iters[s..n-1], *first_steady = s, returns true. When no
 * window qualifies (or n < k), *value = mean of the last min(n, k) iterations,
 * *first_steady = n - min(n, k), returns false (callers warn: not steady).
 */
bool steady_state(const double *iters, size_t n, size_t k, double cv_max, size_t *first_steady,
		  double *value);

/*
 * Deterministic metrics (METHODS.md section 2, step 7; docs/statistics.md): a side is
 * exact when its runs agree within VERDICT_EXACT_SPREAD of their mean ((max - min) / mean;
 * the whole side zero counts as exact too).
 */
#define VERDICT_EXACT_SPREAD 1e-4

/* The relative spread (max - min) / mean of v[0..n); 0 when every value is 0. n >= 1. */
double verdict_spread(const double *v, size_t n);

/*
 * When both sides are exact: fills *out with r = mean(B) / mean(A), the interval
 * [min(B) / max(A), max(B) / min(A)] (the ratio of any run of B to any run of A; a point
 * when every run agreed), and the verdict of that interval against the tolerance, as in
 * step 3 with the bounds included; sets out->exact and out->degenerate and returns 1.
 * A side all zero against one that is not gives the ratio 0 or infinity, decided as it
 * lies. Returns 0 (out's spreads filled, nothing else) when a side is not exact, -1 after
 * error() on bad input (a side with no value, a negative or non-finite value). Pure
 * function, thread-safe.
 */
int verdict_decide_exact(const double *a, size_t n_a, const double *b, size_t n_b,
			 const struct verdict_opts *opts, struct verdict_result *out);

/* The verdict of an interval [lo, hi] of the ratio B/A against opts (METHODS.md 2, step 3). */
enum verdict verdict_classify(double lo, double hi, const struct verdict_opts *opts,
			      bool inclusive);

#endif
