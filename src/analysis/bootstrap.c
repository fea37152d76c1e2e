/*
 * Ratio of arithmetic means with a bootstrap interval (bootstrap.h, docs/statistics.md
 * "Zeros"): the hull of the percentile bootstrap interval of mean(B*) / mean(A*) and
 * Student's t interval of ln(ratio) with the delta-method standard error. The bootstrap
 * alone is too narrow for small samples; the t interval alone assumes a symmetric
 * distribution of ln(ratio), which samples with zeros do not have.
 */
#include "analysis/bootstrap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "util/rng.h"
#include "util/common.h"

#define MIN_RESAMPLES 9999
#define MAX_RESAMPLES 999999
#define TAIL_RESAMPLES 25 /* expected resamples beyond each end of the interval */

size_t bootstrap_resamples(double alpha)
{
	double b = ceil(2 * TAIL_RESAMPLES / alpha) - 1;

	if (!(b > MIN_RESAMPLES))
		return MIN_RESAMPLES;
	if (b > MAX_RESAMPLES)
		return MAX_RESAMPLES;
	return (size_t)b;
}

static int check(const double *x, size_t n, const char *side, double *mean)
{
	size_t i;
	double sum = 0;

	if (n < 2)
		return error("bootstrap: the %s has %zu value(s); at least 2 are needed", side, n);
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]) || x[i] < 0)
			return error(
			    "bootstrap: %s value %zu is %g; values must be finite and >= 0", side,
			    i, x[i]);
		sum += x[i];
	}
	if (!(sum > 0))
		return error("bootstrap: the %s values are all 0; the ratio needs both means > 0",
			     side);
	*mean = sum / (double)n;
	return 0;
}

/* Sample variance about the mean. */
static double variance(const double *x, size_t n, double mean)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += (x[i] - mean) * (x[i] - mean);
	return s / (double)(n - 1);
}

/*
 * The delta-method standard error of ln(mean_b / mean_a) and the t interval's degrees
 * of freedom. Unpaired: se^2 = v_a + v_b, v = var / (n mean^2), Welch-Satterthwaite df
 * (n - 1 of the varying side when the other is constant). Paired: the variance of
 * u_i = b_i / mb - a_i / ma over n, df = n - 1.
 */
static void delta_se(const double *a, size_t n_a, const double *b, size_t n_b, bool paired,
		     double ma, double mb, double *se, double *df)
{
	double va, vb;

	if (paired) {
		/* u directly, not var_b/mb^2 + var_a/ma^2 - 2 cov/(ma mb), which cancels */
		double mu = 0, v = 0;
		size_t i;

		for (i = 0; i < n_a; i++)
			mu += b[i] / mb - a[i] / ma;
		mu /= (double)n_a;
		for (i = 0; i < n_a; i++) {
			double d = b[i] / mb - a[i] / ma - mu;
			v += d * d;
		}
		*se = sqrt(v / (double)(n_a - 1) / (double)n_a);
		*df = (double)(n_a - 1);
		return;
	}
	va = variance(a, n_a, ma) / ((double)n_a * ma * ma);
	vb = variance(b, n_b, mb) / ((double)n_b * mb * mb);
	*se = sqrt(va + vb);
	if (va == 0)
		*df = (double)(n_b - 1);
	else if (vb == 0)
		*df = (double)(n_a - 1);
	else
		*df = (va + vb) * (va + vb) /
		      (va * va / (double)(n_a - 1) + vb * vb / (double)(n_b - 1));
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* Values of sorted[0..n-1] below x (strictly, or at or below when inclusive). */
static size_t count_below(const double *sorted, size_t n, double x, bool inclusive)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sorted[mid] < x || (inclusive && sorted[mid] == x))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* What the p-values need: the sorted resampled ratios and the t interval's statistic. */
struct ratio_dist {
	const double *r; /* defined resampled ratios, ascending (0 and INFINITY included) */
	size_t n, undefined, resamples;
	double log_ratio, se, df;
	bool use_t, use_bootstrap;
};

/*
 * One-sided p for H0 "ratio <= rho" (small when the ratio is plainly above rho): the
 * share of resampled ratios at or below rho, undefined ones included, (count + 1) / (B + 1),
 * and Student's t on ln(ratio); the larger of the two, as the interval is the hull.
 */
static double p_above(const struct ratio_dist *d, double rho)
{
	double p = 0;

	if (d->use_bootstrap)
		p = (double)(count_below(d->r, d->n, rho, true) + d->undefined + 1) /
		    (double)(d->resamples + 1);
	if (d->use_t)
		p = fmax(p, d->se > 0 ? stats_t_sf((d->log_ratio - log(rho)) / d->se, d->df)
				      : (d->log_ratio > log(rho) ? 0 : 1));
	return fmin(1, p);
}

/* The mirror image: H0 "ratio >= rho", small when the ratio is plainly below rho. */
static double p_below(const struct ratio_dist *d, double rho)
{
	double p = 0;

	if (d->use_bootstrap)
		p = (double)(d->n - count_below(d->r, d->n, rho, false) + d->undefined + 1) /
		    (double)(d->resamples + 1);
	if (d->use_t)
		p = fmax(p, d->se > 0 ? stats_t_cdf((d->log_ratio - log(rho)) / d->se, d->df)
				      : (d->log_ratio < log(rho) ? 0 : 1));
	return fmin(1, p);
}

/*
 * Resamples the ratio of means B times into r (ascending on return); *n_defined of them
 * are defined, *undefined had both means 0. A mean of 0 gives ratio 0 (target) or
 * INFINITY (baseline). Plain sums, so that a resample of zeros has a mean of exactly 0.
 */
static void resample(const double *a, size_t n_a, const double *b, size_t n_b,
		     const struct bootstrap_opts *opts, size_t resamples, double *r,
		     size_t *n_defined, size_t *undefined)
{
	struct rng rng;
	size_t k, i, nt = 0, und = 0;

	rng_seed(&rng, opts->seed);
	for (k = 0; k < resamples; k++) {
		double sa = 0, sb = 0;

		if (opts->paired) {
			for (i = 0; i < n_a; i++) {
				uint32_t j = rng_below(&rng, (uint32_t)n_a);
				sa += a[j];
				sb += b[j];
			}
		} else {
			for (i = 0; i < n_a; i++)
				sa += a[rng_below(&rng, (uint32_t)n_a)];
			for (i = 0; i < n_b; i++)
				sb += b[rng_below(&rng, (uint32_t)n_b)];
		}
		if (sa == 0 && sb == 0)
			und++;
		else
			r[nt++] = sa == 0 ? INFINITY : (sb / (double)n_b) / (sa / (double)n_a);
	}
	qsort(r, nt, sizeof(*r), cmp_double);
	*n_defined = nt;
	*undefined = und;
}

int bootstrap_ratio_means(const double *a, size_t n_a, const double *b, size_t n_b,
			  const struct bootstrap_opts *opts, struct bootstrap_ratio *out)
{
	struct ratio_dist d = {0};
	double ma = 0, mb = 0, *r = NULL, lo = INFINITY, hi = 0;
	double alpha = opts->alpha, margin = opts->margin;

	if (check(a, n_a, "baseline", &ma) < 0 || check(b, n_b, "target", &mb) < 0)
		return -1;
	if (opts->paired && n_a != n_b)
		return error("bootstrap: %zu baseline and %zu target values cannot be paired", n_a,
			     n_b);
	if (!(alpha > 0 && alpha < 1))
		return error("bootstrap: alpha %g is outside (0, 1)", alpha);
	if (!(margin >= 1) || !isfinite(margin))
		return error("bootstrap: margin %g must be finite and >= 1", margin);
	if (opts->resamples > MAX_RESAMPLES)
		return error("bootstrap: %zu resamples are more than %d", opts->resamples,
			     MAX_RESAMPLES);
	if (n_a > UINT32_MAX || n_b > UINT32_MAX)
		return error("bootstrap: %zu values are too many", n_a > n_b ? n_a : n_b);

	memset(out, 0, sizeof(*out));
	out->ratio = mb / ma;
	delta_se(a, n_a, b, n_b, opts->paired, ma, mb, &out->se, &out->df);
	d.log_ratio = log(out->ratio);
	d.se = out->se;
	d.df = out->df;
	d.use_t = opts->tails != BOOTSTRAP_PERCENTILE_ONLY;
	d.use_bootstrap = opts->tails != BOOTSTRAP_STUDENT_ONLY;

	if (d.use_t) {
		double q = out->se > 0 ? stats_t_ppf(1 - alpha / 2, out->df) * out->se : 0;
		lo = exp(d.log_ratio - q);
		hi = exp(d.log_ratio + q);
	}
	if (d.use_bootstrap) {
		size_t k, u;

		out->resamples = opts->resamples ? opts->resamples : bootstrap_resamples(alpha);
		r = xmallocarray(out->resamples, sizeof(*r));
		resample(a, n_a, b, n_b, opts, out->resamples, r, &d.n, &out->undefined);
		u = out->undefined;
		/*
		 * The alpha/2 and 1 - alpha/2 quantiles: the k-th smallest and largest of B,
		 * k = floor((B + 1) alpha / 2). An undefined resample (no ratio) counts as 0
		 * for the lower end and as infinite for the upper one: it only widens.
		 */
		k = (size_t)floor((double)(out->resamples + 1) * alpha / 2);
		lo = fmin(lo, k <= u ? 0 : r[k - 1 - u]);
		hi = fmax(hi, k <= u ? INFINITY : r[d.n - (k - u)]);
	}
	out->ci_lo = lo;
	out->ci_hi = hi;

	d.r = r;
	d.undefined = out->undefined;
	d.resamples = out->resamples;
	out->p = fmin(1, 2 * fmin(p_above(&d, 1), p_below(&d, 1)));
	/* H0 ratio <= 1/margin and H0 ratio >= margin, both rejected: equivalent */
	out->p_tost = margin > 1 ? fmax(p_above(&d, 1 / margin), p_below(&d, margin)) : 1;
	free(r);
	return 0;
}

/* ---- the shift of medians (change points) ---- */

/* numpy's _lerp as stats_percentile() uses it, so that a resample of the sample is exact. */
static double lerp_half(double a, double b)
{
	return b - (b - a) * 0.5;
}

/* The median of sorted[0..n) (stats_percentile()'s, method 7). */
static double sorted_median(const double *sorted, size_t n)
{
	return n % 2 ? sorted[n / 2] : lerp_half(sorted[n / 2 - 1], sorted[n / 2]);
}

/*
 * The median of n draws with replacement from sorted[0..n), drawn from its exact
 * distribution instead of drawing n values: O(log n) per resample after O(n) once, so that
 * a change point between segments of hundreds of commits costs milliseconds (drawing the
 * values took 20 ms per change point on the bench series). With N(j) the draws of rank
 * <= j (1-based), Binomial(n, j / n), the m-th smallest draw, m = ceil(n / 2), has rank
 * J1 <= j exactly when N(j) >= m: P(J1 <= j) = I_{j/n}(m, n - m + 1). An odd n's median is
 * sorted[J1]. An even n's is the mean of the m-th and (m+1)-th smallest: the (m+1)-th has
 * rank J1 unless N(J1) = m, which given J1 = i has probability
 *   C(n, m) ((n - i) / n)^(n - m) ((i / n)^m - ((i - 1) / n)^m) / P(J1 = i),
 * and then it is the smallest of the n - m other draws, uniform over the ranks above i:
 * P(J2 >= j) = ((n - j + 1) / (n - i))^(n - m). tests/unit/test_bootstrap.c checks these
 * against every resample of small samples.
 */
struct median_sampler {
	const double *sorted;
	size_t n, m;
	double *cdf;	   /* cdf[j - 1] = P(J1 <= j), j = 1..n */
	double log_choose; /* ln C(n, m) */
};

static void sampler_init(struct median_sampler *ms, const double *sorted, size_t n)
{
	double dn = (double)n;
	ms->sorted = sorted;
	ms->n = n;
	ms->m = (n + 1) / 2;
	ms->cdf = xmallocarray(n, sizeof(*ms->cdf));
	for (size_t j = 1; j < n; j++) {
		double f = stats_incbeta((double)ms->m, (double)(n - ms->m + 1), (double)j / dn);
		ms->cdf[j - 1] =
		    j > 1 ? fmax(f, ms->cdf[j - 2]) : f; /* monotone, whatever rounds */
	}
	ms->cdf[n - 1] = 1;
	/* C(n, m) = 1 / ((n + 1) B(m + 1, n - m + 1)); stats_lbeta(), not lgamma(), which
	 * writes the global signgam (the change points of several series run in threads) */
	ms->log_choose = -log(dn + 1) - stats_lbeta((double)ms->m + 1, dn - (double)ms->m + 1);
}

static double uniform01(struct rng *rng)
{
	return ((double)(rng_next(rng) >> 11) + 0.5) / 9007199254740992.0;
}

/* P(N(i) = m and J1 = i) / P(J1 = i): the (m+1)-th smallest draw is above rank i. */
static double p_upper_above(const struct median_sampler *ms, size_t i)
{
	double n = (double)ms->n, m = (double)ms->m, di = (double)i;
	double p_i = ms->cdf[i - 1] - (i > 1 ? ms->cdf[i - 2] : 0), t;
	if (i == ms->n || !(p_i > 0))
		return 0;
	t = exp(ms->log_choose + (n - m) * log((n - di) / n) + m * log(di / n)) *
	    -expm1(m * log1p(-1 / di));
	return fmin(1, t / p_i);
}

static double sampled_median(const struct median_sampler *ms, struct rng *rng)
{
	size_t lo = 0, hi = ms->n - 1, i, j;
	double u = uniform01(rng);

	while (lo < hi) { /* the first rank whose cdf reaches u */
		size_t mid = lo + (hi - lo) / 2;
		if (ms->cdf[mid] >= u)
			hi = mid;
		else
			lo = mid + 1;
	}
	i = lo + 1;
	if (ms->n % 2)
		return ms->sorted[i - 1];
	j = i;
	if (uniform01(rng) < p_upper_above(ms, i)) {
		double v = uniform01(rng);
		double top =
		    (double)ms->n + 1 - (double)(ms->n - i) * pow(v, 1 / (double)(ms->n - ms->m));
		j = (size_t)floor(top);
		j = j <= i ? i + 1 : j > ms->n ? ms->n : j;
	}
	return lerp_half(ms->sorted[i - 1], ms->sorted[j - 1]);
}

static int check_finite(const double *x, size_t n, const char *side)
{
	if (n < 1)
		return error("bootstrap: the %s has no value", side);
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return error("bootstrap: %s value %zu is %g; values must be finite", side,
				     i, x[i]);
	return 0;
}

int bootstrap_median_shift(const double *a, size_t n_a, const double *b, size_t n_b, double alpha,
			   uint64_t seed, size_t resamples, struct bootstrap_shift *out)
{
	double *sa, *sb, *r, ma, mb;
	struct median_sampler msa, msb;
	struct rng rng;
	size_t k, nt = 0, u = 0;

	if (check_finite(a, n_a, "baseline") < 0 || check_finite(b, n_b, "target") < 0)
		return -1;
	if (!(alpha > 0 && alpha < 1))
		return error("bootstrap: alpha %g is outside (0, 1)", alpha);
	if (resamples > MAX_RESAMPLES)
		return error("bootstrap: %zu resamples are more than %d", resamples, MAX_RESAMPLES);
	if (n_a > UINT32_MAX || n_b > UINT32_MAX)
		return error("bootstrap: %zu values are too many", n_a > n_b ? n_a : n_b);
	sa = xmallocarray(n_a, sizeof(*sa));
	sb = xmallocarray(n_b, sizeof(*sb));
	memcpy(sa, a, n_a * sizeof(*sa));
	memcpy(sb, b, n_b * sizeof(*sb));
	qsort(sa, n_a, sizeof(*sa), cmp_double);
	qsort(sb, n_b, sizeof(*sb), cmp_double);
	ma = sorted_median(sa, n_a);
	mb = sorted_median(sb, n_b);
	if (ma == 0) {
		free(sa);
		free(sb);
		return error("bootstrap: the baseline's median is 0; a relative shift needs it "
			     "non-zero");
	}
	memset(out, 0, sizeof(*out));
	out->shift = (mb - ma) / fabs(ma);
	out->resamples = resamples ? resamples : bootstrap_resamples(alpha);
	r = xmallocarray(out->resamples, sizeof(*r));
	sampler_init(&msa, sa, n_a);
	sampler_init(&msb, sb, n_b);
	rng_seed(&rng, seed);
	for (size_t j = 0; j < out->resamples; j++) {
		double ra = sampled_median(&msa, &rng);
		double rb = sampled_median(&msb, &rng);
		if (ra == 0)
			u++;
		else
			r[nt++] = (rb - ra) / fabs(ra);
	}
	qsort(r, nt, sizeof(*r), cmp_double);
	/* as bootstrap_ratio_means(): the k-th smallest and largest, an undefined resample
	 * beyond both ends */
	k = (size_t)floor((double)(out->resamples + 1) * alpha / 2);
	out->ci_lo = k <= u ? -INFINITY : r[k - 1 - u];
	out->ci_hi = k <= u ? INFINITY : r[nt - (k - u)];
	/* a skewed resampling distribution of a median can leave the estimate outside: the
	 * interval is widened to hold it, never narrowed */
	out->ci_lo = fmin(out->ci_lo, out->shift);
	out->ci_hi = fmax(out->ci_hi, out->shift);
	out->undefined = u;
	free(r);
	free(msa.cdf);
	free(msb.cdf);
	free(sa);
	free(sb);
	return 0;
}
