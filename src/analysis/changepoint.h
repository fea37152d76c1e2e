#ifndef REVPERF_ANALYSIS_CHANGEPOINT_H
#define REVPERF_ANALYSIS_CHANGEPOINT_H

/*
 * Change points along a metric series (one value per commit, in history order) by
 * E-divisive means with a permutation significance test (METHODS.md section 9; Matteson &
 * James 2014, the method of ecp's e.divisive, MongoDB's signal-processing-algorithms and
 * Apache Otava). docs/change-points.md gives the statistic (U-statistic within-segment
 * means), the two split variants and why TAIL is the default, the p-value, the PRNG and
 * the measured costs and error rates.
 *
 * Pure analysis on an in-memory array: no I/O, no global state; distinct results may be
 * computed from distinct threads. Deterministic: the same series, options and seed give
 * the same result on every machine.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHANGEPOINT_DEFAULT_SIG_LEVEL 0.05
#define CHANGEPOINT_DEFAULT_PERMUTATIONS 199u
#define CHANGEPOINT_DEFAULT_MIN_SIZE 3u
#define CHANGEPOINT_DEFAULT_ALPHA 1.0
#define CHANGEPOINT_DEFAULT_SEED 1u
/* The interval of a change point's relative change: 99%, the verdict's default alpha. */
#define CHANGEPOINT_DEFAULT_CI_ALPHA 0.01
#define CHANGEPOINT_MAX_PERMUTATIONS 1000000u
/* Longest series accepted (segment sizes and ranks are drawn as 32-bit numbers). */
#define CHANGEPOINT_MAX_LEN ((size_t)1 << 30)
/* Largest magnitude of a value (so that sums of squared distances cannot overflow). */
#define CHANGEPOINT_MAX_ABS 1e100

/*
 * Which splits of a segment s[0..m) are compared. TAIL: X = s[0..tau), Y = s[tau..m), the
 * statistic of MongoDB's signal-processing-algorithms and Hunter/Otava; O(m log m) per
 * evaluation for alpha = 1. KAPPA: also Y = s[tau..kappa) for every kappa < m, ecp's
 * e.divisive exactly (finds a short excursion, a regression fixed a few commits later, in
 * a long history); O(m^2). docs/change-points.md compares them.
 */
enum changepoint_split {
	CHANGEPOINT_SPLIT_TAIL = 0,
	CHANGEPOINT_SPLIT_KAPPA,
};

struct changepoint_opts {
	double sig_level;      /* a change point is kept when p <= sig_level; in (0, 1) */
	unsigned permutations; /* R, 1..CHANGEPOINT_MAX_PERMUTATIONS, (R + 1) * sig_level >= 1 */
	size_t min_size;       /* fewest values in a segment, >= 2 */
	double alpha;	       /* exponent of the distances |x - y|^alpha, in (0, 2] */
	uint64_t seed;	       /* seeds the permutations (any value, 0 included) */
	size_t max_points;     /* stop after this many change points; 0 = no limit */
	enum changepoint_split split; /* default TAIL */
	/*
	 * Smallest shift kept, relative: after the search, a change point whose segments'
	 * medians differ by less than this fraction of the median before is dropped and its
	 * two segments merged (the smallest first, then again with the merged medians); 0
	 * keeps every change point. For counts that a machine does not change (instructions
	 * under valgrind), where a shift of a few instructions is significant but below the
	 * count tolerance of the verdict. In [0, 1].
	 */
	double min_rel_change;
	/*
	 * The interval of each change point's rel_change is a (1 - ci_alpha) percentile
	 * bootstrap of the two adjacent final segments (bootstrap_median_shift(), seeded from
	 * seed and the change point's index); 0 computes none (NaN bounds). In [0, 1).
	 */
	double ci_alpha;
	const char *name; /* names the series in error messages; NULL = "series" */
};

/*
 * Defaults: sig_level 0.05, 199 permutations, min_size 3, alpha 1, seed 1, no limit,
 * split TAIL, min_rel_change 0, ci_alpha 0.01.
 */
void changepoint_opts_init(struct changepoint_opts *opts);

/* A segment of the final segmentation: values [start, end) of the series. */
struct changepoint_segment {
	size_t start, end;
	double mean, median;
};

/*
 * A change point: `index` is the first value of the new segment. q and p_value are those
 * of the test that accepted it (the segmentation at that moment); the means and medians
 * are those of the final segments just before and just after it.
 */
struct changepoint {
	size_t index;
	size_t order;	/* 1 for the first change point accepted (and kept), 2 for the next... */
	double q;	/* the scaled energy statistic at the split (largest over kappa) */
	double p_value; /* (1 + #{permuted max q >= q}) / (R + 1) */
	double mean_before, mean_after;
	double median_before, median_after;
	double rel_change; /* (median_after - median_before) / |median_before|; NAN if 0 */
	/* (1 - ci_alpha) interval of rel_change (+-INFINITY when unbounded); NAN when
	 * rel_change is or when ci_alpha is 0 */
	double rel_change_lo, rel_change_hi;
	size_t n_before, n_after; /* values in the final segments just before and after */
};

/*
 * Segments shorter than this give intervals that cover less than their level (3 values a
 * side: about 90% for a 99% interval, measured by bench/changepoint_ci_bench; 5: 98%):
 * reports say so.
 */
#define CHANGEPOINT_SHORT_SEGMENT 5u

/* Why the search stopped. */
enum changepoint_stop {
	CHANGEPOINT_STOP_NOT_SIGNIFICANT = 0, /* the best candidate had p > sig_level */
	CHANGEPOINT_STOP_TOO_SHORT,	      /* no segment has 2 * min_size values */
	CHANGEPOINT_STOP_MAX_POINTS,	      /* max_points reached */
};

/* The best split that was tested and not kept (when stop is NOT_SIGNIFICANT). */
struct changepoint_candidate {
	size_t index;
	double q, p_value;
};

struct changepoint_result {
	struct changepoint *points; /* sorted by index */
	size_t nr_points;
	struct changepoint_segment *segments; /* sorted; nr_points + 1 of them, none if n == 0 */
	size_t nr_segments;
	enum changepoint_stop stop;
	bool has_rejected;
	struct changepoint_candidate rejected;
	size_t nr_tests; /* permutation tests run (accepted + rejected) */
	size_t nr_below_min_change; /* change points dropped by min_rel_change */
};

/*
 * Finds the change points of x[0..n). opts NULL means the defaults. A series shorter than
 * 2 * min_size has none (one segment, stop TOO_SHORT): not an error. Fills *res (zeroed
 * first); the caller releases it with changepoint_result_release(), also after a failure.
 * Returns RP_OK, or RP_EINPUT after error() for a NaN, infinite or too large value (the
 * message names its index), x NULL with n > 0, n > CHANGEPOINT_MAX_LEN or options outside
 * the ranges above.
 * Time: R permutations of every segment that appears (the whole series, then the two
 * halves of each split), each O(m log m) for TAIL with alpha = 1 and O(m^2) otherwise.
 */
int changepoint_detect(const double *x, size_t n, const struct changepoint_opts *opts,
		       struct changepoint_result *res);

/* Frees the arrays of res and zeroes it; accepts a zeroed or released result. */
void changepoint_result_release(struct changepoint_result *res);

/*
 * The q statistic of every split of x[0..n) taken as one segment, with the min_size, alpha
 * and split of opts (NULL = defaults): q[tau] for min_size <= tau <= n - min_size is
 * the largest q over the kappas tried for X = x[0..tau); NAN for every other tau < n. q
 * must hold n values. For reports and tests. Returns RP_OK, or RP_EINPUT after error()
 * for non-finite values, min_size < 2 or an alpha outside (0, 2].
 */
int changepoint_qcurve(const double *x, size_t n, const struct changepoint_opts *opts, double *q);

#endif
