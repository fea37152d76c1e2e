/*
 * bench/changepoint_ci_bench [TRIALS]   (default 1000 per cell; seeded, so reproducible)
 *
 * The coverage of a change point's interval (bootstrap_median_shift(), the percentile
 * bootstrap of median(after) / median(before) - 1 that history and report print), by
 * simulation with the split known: TRIALS pairs of segments of n_before and n_after
 * commits, each commit's value level * (1 + noise), the level 1e6 before and 1.1e6 after
 * (a true shift of +10% of the median), the noise Gaussian with sd 2% or heavy-tailed (a
 * Gaussian of 2% plus, for 10% of the commits, an extra +0..50%: outliers upward, as
 * machines make them). Per cell: how often the 99% and 95% intervals hold the true +10%,
 * how often they hold 0, and the median width.
 *
 * What it does not measure: the split is given here; history's split is found by
 * E-divisive, and a split a commit off puts a value of the other level into a segment.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bootstrap.h"
#include "analysis/stats.h"
#include "util/rng.h"
#include "util/common.h"

static double uniform(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(struct rng *r)
{
	double u = uniform(r), v = uniform(r);
	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* One commit's value: the median of a benchmark's runs at that commit. */
static double value(struct rng *r, double level, bool heavy)
{
	double x = level * (1.0 + 0.02 * normal(r));
	if (heavy && uniform(r) < 0.1)
		x += level * 0.5 * uniform(r);
	return x;
}

/* The noise scales with the level: the population medians differ by exactly 10%. */
static double true_shift(void)
{
	return 0.1;
}

int main(int argc, char **argv)
{
	static const size_t sizes[][2] = {{3, 3},   {3, 30},  {30, 3},	{5, 5},	   {6, 6},
					  {10, 10}, {20, 20}, {50, 50}, {200, 200}};
	size_t trials = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	double *a, *b, *w99, shift = true_shift();

	if (!trials)
		return 2;
	a = xmallocarray(200, sizeof(*a));
	b = xmallocarray(200, sizeof(*b));
	w99 = xmallocarray(trials, sizeof(*w99));
	printf("changepoint_ci_bench: %zu trials per cell, true shift %+.0f%%, B = %zu "
	       "resamples at 99%%\n",
	       trials, 100 * shift, bootstrap_resamples(0.01));
	printf("%-12s %-9s %12s %12s %10s %10s %12s\n", "noise", "n before/after", "99% covers",
	       "95% covers", "99% has 0", "95% has 0", "99% width");
	for (int heavy = 0; heavy < 2; heavy++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			size_t na = sizes[s][0], nb = sizes[s][1];
			size_t cov99 = 0, cov95 = 0, zero99 = 0, zero95 = 0;
			struct rng r;
			rng_seed(&r, 1000 + 17 * s + (size_t)heavy);
			for (size_t t = 0; t < trials; t++) {
				struct bootstrap_shift s99, s95;
				for (size_t i = 0; i < na; i++)
					a[i] = value(&r, 1e6, heavy);
				for (size_t i = 0; i < nb; i++)
					b[i] = value(&r, 1.1e6, heavy);
				if (bootstrap_median_shift(a, na, b, nb, 0.01, t + 1, 0, &s99) ||
				    bootstrap_median_shift(a, na, b, nb, 0.05, t + 1, 0, &s95))
					return 3;
				cov99 += s99.ci_lo <= shift && shift <= s99.ci_hi;
				cov95 += s95.ci_lo <= shift && shift <= s95.ci_hi;
				zero99 += s99.ci_lo <= 0 && 0 <= s99.ci_hi;
				zero95 += s95.ci_lo <= 0 && 0 <= s95.ci_hi;
				w99[t] = s99.ci_hi - s99.ci_lo;
			}
			printf("%-12s %4zu/%-4zu %11.1f%% %11.1f%% %9.1f%% %9.1f%% %11.2f%%\n",
			       heavy ? "2% + tail" : "2% Gaussian", na, nb,
			       100.0 * (double)cov99 / (double)trials,
			       100.0 * (double)cov95 / (double)trials,
			       100.0 * (double)zero99 / (double)trials,
			       100.0 * (double)zero95 / (double)trials,
			       100.0 * stats_percentile(w99, trials, 50));
		}
	}
	free(a);
	free(b);
	free(w99);
	return 0;
}
