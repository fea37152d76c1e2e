/*
 * Descriptive statistics, ranks, Gaussian KDE and least squares. See stats.h and
 * docs/statistics.md.
 */
#include "analysis/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"

double stats_mean(const double *x, size_t n)
{
	double sum = 0;
	size_t i;

	if (n == 0)
		return NAN;
	for (i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

double stats_variance(const double *x, size_t n)
{
	double mean, ss = 0;
	size_t i;

	if (n < 2)
		return NAN;
	/* two passes: no cancellation for data far from zero (timings around 1e9 ns) */
	mean = stats_mean(x, n);
	for (i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	return ss / (double)(n - 1);
}

double stats_sd(const double *x, size_t n)
{
	return sqrt(stats_variance(x, n));
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

/* A sorted copy of x, NULL (with an error) when x has a NaN. The caller frees it. */
static double *sorted_copy(const double *x, size_t n, const char *what)
{
	double *s = xmallocarray(n ? n : 1, sizeof(*s));
	size_t i;

	for (i = 0; i < n; i++) {
		if (isnan(x[i])) {
			free(s);
			error("%s: value %zu is NaN", what, i);
			return NULL;
		}
		s[i] = x[i];
	}
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

/* numpy's _lerp: a + (b - a) t, computed from the nearer end so that t = 1 gives b exactly. */
static double lerp(double a, double b, double t)
{
	double diff = b - a;

	return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

int stats_percentiles(const double *x, size_t n, const double *q, size_t n_q, double *out)
{
	double *s;
	size_t i;

	if (n == 0)
		return error("percentile of an empty sample");
	for (i = 0; i < n_q; i++)
		if (!(q[i] >= 0 && q[i] <= 100))
			return error("percentile %g is outside [0, 100]", q[i]);
	s = sorted_copy(x, n, "percentile");
	if (!s)
		return -1;
	for (i = 0; i < n_q; i++) {
		/* numpy 'linear' (method 7 of Hyndman and Fan): index (n - 1) q / 100 */
		double index = (double)(n - 1) * (q[i] / 100);
		double below = floor(index);
		size_t lo = (size_t)below;
		size_t hi = lo + 1 < n ? lo + 1 : n - 1;

		out[i] = lerp(s[lo], s[hi], index - below);
	}
	free(s);
	return 0;
}

double stats_percentile(const double *x, size_t n, double q)
{
	double v = NAN;

	if (stats_percentiles(x, n, &q, 1, &v) < 0)
		return NAN;
	return v;
}

/* Sorting key for ranks: the value and where it came from. */
struct ranked {
	double v;
	size_t i;
};

static int cmp_ranked(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	if (a->v != b->v)
		return (a->v > b->v) - (a->v < b->v);
	return (a->i > b->i) - (a->i < b->i);
}

int stats_rank_average(const double *x, size_t n, double *ranks)
{
	struct ranked *r;
	size_t i, j, k;

	for (i = 0; i < n; i++)
		if (isnan(x[i]))
			return error("rank: value %zu is NaN", i);
	r = xmallocarray(n ? n : 1, sizeof(*r));
	for (i = 0; i < n; i++) {
		r[i].v = x[i];
		r[i].i = i;
	}
	qsort(r, n, sizeof(*r), cmp_ranked);
	for (i = 0; i < n; i = j) {
		double avg;

		for (j = i + 1; j < n && r[j].v == r[i].v; j++)
			;
		/* positions i..j-1 (0-based) share ranks i+1..j: their average */
		avg = 0.5 * (double)(i + 1 + j);
		for (k = i; k < j; k++)
			ranks[r[k].i] = avg;
	}
	free(r);
	return 0;
}

double stats_kde_factor(size_t n, enum stats_bw bw)
{
	if (n == 0)
		return NAN;
	/* one dimension: d = 1, so the exponent -1/(d + 4) is -1/5 */
	if (bw == STATS_BW_SILVERMAN)
		return pow((double)n * 3.0 / 4.0, -0.2);
	return pow((double)n, -0.2);
}

static int check_finite(const double *x, size_t n, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return error("%s: value %zu is not finite", what, i);
	return 0;
}

int stats_gaussian_kde(const double *x, size_t n, enum stats_bw bw, const double *grid,
		       size_t n_grid, double *density)
{
	double var, h2, norm;
	size_t g, i;

	if (n < 2)
		return error("kernel density estimate needs at least 2 values, got %zu", n);
	if (check_finite(x, n, "kernel density estimate") < 0)
		return -1;
	var = stats_variance(x, n);
	if (!(var > 0))
		return error("kernel density estimate of a sample without variance");
	/* kernel variance: the sample covariance scaled by factor^2 (gaussian_kde) */
	h2 = var * stats_kde_factor(n, bw) * stats_kde_factor(n, bw);
	norm = 1 / (sqrt(2 * M_PI * h2) * (double)n);
	for (g = 0; g < n_grid; g++) {
		double sum = 0;

		for (i = 0; i < n; i++) {
			double d = grid[g] - x[i];

			sum += exp(-0.5 * d * d / h2);
		}
		density[g] = sum * norm;
	}
	return 0;
}

int stats_linear_regression(const double *x, const double *y, size_t n, struct stats_linreg *out)
{
	double mx, my, sxx = 0, syy = 0, sxy = 0;
	size_t i;

	if (n < 2)
		return error("linear regression needs at least 2 points, got %zu", n);
	if (check_finite(x, n, "linear regression x") < 0 ||
	    check_finite(y, n, "linear regression y") < 0)
		return -1;
	mx = stats_mean(x, n);
	my = stats_mean(y, n);
	for (i = 0; i < n; i++) {
		double dx = x[i] - mx, dy = y[i] - my;

		sxx += dx * dx;
		syy += dy * dy;
		sxy += dx * dy;
	}
	if (!(sxx > 0))
		return error("linear regression: all x values are identical");
	out->slope = sxy / sxx;
	out->intercept = my - out->slope * mx;
	if (syy > 0) {
		out->r = sxy / sqrt(sxx * syy);
		/* rounding can push |r| a hair past 1 */
		if (out->r > 1)
			out->r = 1;
		else if (out->r < -1)
			out->r = -1;
	} else {
		out->r = 0; /* as scipy.stats.linregress for constant y */
	}
	return 0;
}

/* P(B = i) for B ~ Binomial(n, 1/2), in log space so that 2^-n cannot underflow the terms
 * that matter. */
static double binom_half_pmf(size_t n, size_t i)
{
	return exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) -
		   (double)n * log(2.0));
}

int stats_median_ci(const double *x, size_t n, double level, struct stats_median_ci *out)
{
	double *s, cdf;
	size_t k = 1;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return error("median interval: no values");
	if (!(level > 0 && level < 1))
		return error("median interval: level %g is outside (0, 1)", level);
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return error("median interval: value %zu is not a finite number", i);
	if (!(s = sorted_copy(x, n, "median interval")))
		return -1;
	out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	/* [x_(k), x_(n+1-k)] misses the median with probability 2 P(B <= k - 1), which grows
	 * with k: take the largest k whose coverage still reaches level. cdf = P(B <= k - 1). */
	cdf = binom_half_pmf(n, 0);
	out->coverage = 1 - 2 * cdf;
	out->minmax = out->coverage < level;
	while (!out->minmax && k + 1 <= (n + 1) / 2) {
		double next = cdf + binom_half_pmf(n, k);
		if (1 - 2 * next < level)
			break;
		cdf = next;
		out->coverage = 1 - 2 * cdf;
		k++;
	}
	if (out->coverage < 0)
		out->coverage = 0;
	out->lo_rank = k;
	out->hi_rank = n + 1 - k;
	out->lo = s[k - 1];
	out->hi = s[n - k];
	free(s);
	return 0;
}
