/*
 * Hypothesis tests: Welch, TOST, Mann-Whitney U, Spearman, and the Benjamini-Hochberg
 * adjustment (Shapiro-Wilk is in stats_shapiro.c). See stats.h and docs/statistics.md.
 */
#include "analysis/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"

static int require_finite(const double *x, size_t n, const char *what)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return error("%s: value %zu is not finite", what, i);
	return 0;
}

/* Welch's t, df and p, without the interval. */
static int welch_core(const double *a, size_t n_a, const double *b, size_t n_b,
		      struct stats_welch_result *out, const char *what)
{
	double va, vb, se2;

	if (n_a < 2 || n_b < 2)
		return error("%s needs at least 2 values per side, got %zu and %zu", what, n_a,
			     n_b);
	if (require_finite(a, n_a, what) < 0 || require_finite(b, n_b, what) < 0)
		return -1;
	va = stats_variance(a, n_a) / (double)n_a;
	vb = stats_variance(b, n_b) / (double)n_b;
	se2 = va + vb;
	out->diff = stats_mean(b, n_b) - stats_mean(a, n_a);
	out->se = sqrt(se2);
	out->ci_lo = out->ci_hi = out->diff;
	if (se2 == 0) {
		/* no variance on either side: there is no t distribution to refer to */
		out->t = out->diff == 0 ? NAN : copysign(INFINITY, out->diff);
		out->df = NAN;
		out->p = NAN;
		return 0;
	}
	out->t = out->diff / out->se;
	/* Welch-Satterthwaite */
	out->df = se2 * se2 / (va * va / (double)(n_a - 1) + vb * vb / (double)(n_b - 1));
	out->p = 2 * stats_t_sf(fabs(out->t), out->df);
	if (out->p > 1)
		out->p = 1;
	return 0;
}

/* The (1 - alpha) t interval diff +- t(1 - alpha/2, df) se; left as [diff, diff] when se = 0. */
static void t_interval(struct stats_welch_result *out, double alpha)
{
	double q;
	if (!(out->se > 0))
		return;
	q = stats_t_ppf(1 - alpha / 2, out->df);
	out->ci_lo = out->diff - q * out->se;
	out->ci_hi = out->diff + q * out->se;
}

int stats_welch(const double *a, size_t n_a, const double *b, size_t n_b, double alpha,
		struct stats_welch_result *out)
{
	if (!(alpha > 0 && alpha < 1))
		return error("Welch test: alpha %g is outside (0, 1)", alpha);
	if (welch_core(a, n_a, b, n_b, out, "Welch test") < 0)
		return -1;
	t_interval(out, alpha);
	return 0;
}

/*
 * TOST from a t statistic's pieces: H0 diff <= low is rejected for large t, H0 diff >= high
 * for small t; the larger p wins. Without variance the answer is exact: 0 inside, 1 out.
 */
static double tost_p(const struct stats_welch_result *w, double low, double high)
{
	double p_low, p_high;
	if (w->se == 0)
		return low < w->diff && w->diff < high ? 0 : 1;
	p_low = stats_t_sf((w->diff - low) / w->se, w->df);
	p_high = stats_t_cdf((w->diff - high) / w->se, w->df);
	return p_low > p_high ? p_low : p_high;
}

static int one_sample_core(const double *d, size_t n, struct stats_welch_result *out,
			   const char *what)
{
	size_t i;
	memset(out, 0, sizeof(*out));
	if (n < 2)
		return error("%s: %zu value(s); at least 2 are needed", what, n);
	for (i = 0; i < n; i++)
		if (!isfinite(d[i]))
			return error("%s: value %zu is not finite", what, i);
	out->diff = stats_mean(d, n);
	out->se = stats_sd(d, n) / sqrt((double)n);
	out->ci_lo = out->ci_hi = out->diff;
	if (out->se > 0) {
		out->df = (double)(n - 1);
		out->t = out->diff / out->se;
		out->p = 2 * stats_t_sf(fabs(out->t), out->df);
		if (out->p > 1)
			out->p = 1;
	} else {
		out->df = NAN;
		out->p = NAN;
		out->t = out->diff == 0 ? NAN : out->diff > 0 ? INFINITY : -INFINITY;
	}
	return 0;
}

int stats_t_one_sample(const double *d, size_t n, double alpha, struct stats_welch_result *out)
{
	if (!(alpha > 0 && alpha < 1))
		return error("one-sample t test: alpha %g is outside (0, 1)", alpha);
	if (one_sample_core(d, n, out, "one-sample t test") < 0)
		return -1;
	t_interval(out, alpha);
	return 0;
}

int stats_tost_one_sample(const double *d, size_t n, double low, double high, double *p_tost)
{
	struct stats_welch_result w;
	if (!(low < high))
		return error("equivalence test: bounds [%g, %g] are empty", low, high);
	if (one_sample_core(d, n, &w, "equivalence test") < 0)
		return -1;
	*p_tost = tost_p(&w, low, high);
	return 0;
}

/* ln of every value into a new array (the caller frees it); NULL unless all are > 0. */
static double *log_copy(const double *x, size_t n, const char *what)
{
	double *l = xmallocarray(n ? n : 1, sizeof(*l));
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(x[i] > 0) || !isfinite(x[i])) {
			free(l);
			error("%s: value %zu (%g) must be finite and > 0 for the log scale", what,
			      i, x[i]);
			return NULL;
		}
		l[i] = log(x[i]);
	}
	return l;
}

int stats_welch_log(const double *a, size_t n_a, const double *b, size_t n_b, double alpha,
		    struct stats_welch_log_result *out)
{
	struct stats_welch_result w = {0};
	double *la = NULL, *lb = NULL;
	int ret = -1;

	la = log_copy(a, n_a, "Welch test (log)");
	if (!la)
		goto out;
	lb = log_copy(b, n_b, "Welch test (log)");
	if (!lb)
		goto out;
	if (stats_welch(la, n_a, lb, n_b, alpha, &w) < 0)
		goto out;
	out->t = w.t;
	out->df = w.df;
	out->p = w.p;
	out->ratio = exp(w.diff);
	out->ci_lo = exp(w.ci_lo);
	out->ci_hi = exp(w.ci_hi);
	ret = 0;
out:
	free(lb);
	free(la);
	return ret;
}

int stats_tost(const double *a, size_t n_a, const double *b, size_t n_b, double low, double high,
	       double *p_tost)
{
	struct stats_welch_result w = {0};

	if (!(low < high))
		return error("equivalence test: bounds [%g, %g] are empty", low, high);
	if (welch_core(a, n_a, b, n_b, &w, "equivalence test") < 0)
		return -1;
	*p_tost = tost_p(&w, low, high);
	return 0;
}

int stats_tost_log(const double *a, size_t n_a, const double *b, size_t n_b, double margin_ratio,
		   double *p_tost)
{
	double *la = NULL, *lb = NULL, margin;
	int ret = -1;

	if (!(margin_ratio > 1) || !isfinite(margin_ratio))
		return error("equivalence test: margin ratio %g must be > 1", margin_ratio);
	margin = log(margin_ratio);
	la = log_copy(a, n_a, "equivalence test (log)");
	if (!la)
		goto out;
	lb = log_copy(b, n_b, "equivalence test (log)");
	if (!lb)
		goto out;
	ret = stats_tost(la, n_a, lb, n_b, -margin, margin, p_tost);
out:
	free(lb);
	free(la);
	return ret;
}

/*
 * P(U >= u) under H0 without ties, for samples of sizes m and n, by the recurrence of
 * Mann and Whitney (1947): N(i, j, k) = N(i - 1, j, k - j) + N(i, j - 1, k), the number
 * of arrangements of i + j values with U = k. Only additions of positive counts, so
 * small tail probabilities keep their relative accuracy. O((m n)^2 / 4) time,
 * O(m^2 n / 2) memory, hence the STATS_MW_EXACT_MAX cap.
 */
static double mw_exact_sf(size_t m, size_t n, size_t u)
{
	/* rows[i] holds N(i, j, 0..i*j) for the current j; prev for j - 1 */
	double **rows = xcalloc(m + 1, sizeof(*rows));
	double **prev = xcalloc(m + 1, sizeof(*prev));
	double total = 0, tail = 0;
	size_t i, j, k;

	for (i = 0; i <= m; i++) {
		size_t len = i * n + 1;

		rows[i] = xcalloc(len, sizeof(**rows));
		prev[i] = xcalloc(len, sizeof(**prev));
		prev[i][0] = 1; /* j = 0: only U = 0 */
	}
	for (j = 1; j <= n; j++) {
		rows[0][0] = 1;
		for (i = 1; i <= m; i++) {
			size_t len = i * j + 1;

			for (k = 0; k < len; k++) {
				/* the largest value is from the first sample: it beats all j */
				double v = k >= j && k - j <= (i - 1) * j ? rows[i - 1][k - j] : 0;

				if (k <= i * (j - 1))
					v += prev[i][k];
				rows[i][k] = v;
			}
		}
		for (i = 0; i <= m; i++) {
			double *swap = prev[i];

			prev[i] = rows[i];
			rows[i] = swap;
		}
	}
	for (k = 0; k <= m * n; k++) {
		total += prev[m][k];
		if (k >= u)
			tail += prev[m][k];
	}
	for (i = 0; i <= m; i++) {
		free(rows[i]);
		free(prev[i]);
	}
	free(rows);
	free(prev);
	return tail / total;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

/* sum over groups of equal values of (t^3 - t), t the group size; sorts x in place. */
static double tie_term(double *x, size_t n)
{
	double sum = 0;
	size_t i, j;

	qsort(x, n, sizeof(*x), cmp_double);
	for (i = 0; i < n; i = j) {
		double t;

		for (j = i + 1; j < n && x[j] == x[i]; j++)
			;
		t = (double)(j - i);
		sum += t * t * t - t;
	}
	return sum;
}

int stats_mann_whitney(const double *a, size_t n_a, const double *b, size_t n_b, bool exact,
		       struct stats_mw_result *out)
{
	size_t n = n_a + n_b, i;
	double *pool = NULL, *ranks = NULL;
	double rank_sum = 0, ties, u_max, mu, s, nn = (double)n, prod = (double)n_a * (double)n_b;
	int ret = -1;

	if (n_a < 1 || n_b < 1)
		return error("Mann-Whitney test needs at least 1 value per side, got %zu and %zu",
			     n_a, n_b);
	pool = xmallocarray(n, sizeof(*pool));
	ranks = xmallocarray(n, sizeof(*ranks));
	memcpy(pool, a, n_a * sizeof(*a));
	memcpy(pool + n_a, b, n_b * sizeof(*b));
	if (stats_rank_average(pool, n, ranks) < 0)
		goto out;
	for (i = 0; i < n_a; i++)
		rank_sum += ranks[i];
	out->u_a = rank_sum - (double)n_a * (double)(n_a + 1) / 2;
	ties = tie_term(pool, n);
	out->ties = ties > 0;

	/* two-sided: the larger of U_a and U_b = n_a n_b - U_a, against its upper tail */
	u_max = out->u_a > prod - out->u_a ? out->u_a : prod - out->u_a;
	mu = prod / 2;
	s = sqrt(prod / 12 * ((nn + 1) - ties / (nn * (nn - 1))));
	if (s > 0) {
		out->p_asymptotic = 2 * stats_normal_sf((u_max - mu - 0.5) / s);
		if (out->p_asymptotic > 1)
			out->p_asymptotic = 1;
	} else {
		out->p_asymptotic = 1; /* every value tied: no evidence of a shift */
	}

	out->p_exact = NAN;
	if (exact && !out->ties && prod <= STATS_MW_EXACT_MAX) {
		size_t m = n_a < n_b ? n_a : n_b, big = n_a < n_b ? n_b : n_a;

		/* U's null distribution is the same for (m, n) and (n, m) */
		out->p_exact = 2 * mw_exact_sf(m, big, (size_t)u_max);
		if (out->p_exact > 1)
			out->p_exact = 1;
	}
	ret = 0;
out:
	free(ranks);
	free(pool);
	return ret;
}

int stats_spearman(const double *x, const double *y, size_t n, double *rho, double *p)
{
	double *rx = NULL, *ry = NULL, mr, sxx = 0, syy = 0, sxy = 0, r, df, t;
	size_t i;
	int ret = -1;

	if (n < 3)
		return error("Spearman correlation needs at least 3 pairs, got %zu", n);
	rx = xmallocarray(n, sizeof(*rx));
	ry = xmallocarray(n, sizeof(*ry));
	if (stats_rank_average(x, n, rx) < 0 || stats_rank_average(y, n, ry) < 0)
		goto out;
	/* Pearson correlation of the ranks; both rank vectors have mean (n + 1) / 2 */
	mr = 0.5 * (double)(n + 1);
	for (i = 0; i < n; i++) {
		sxx += (rx[i] - mr) * (rx[i] - mr);
		syy += (ry[i] - mr) * (ry[i] - mr);
		sxy += (rx[i] - mr) * (ry[i] - mr);
	}
	ret = 0;
	if (sxx == 0 || syy == 0) {
		*rho = NAN;
		*p = NAN;
		goto out;
	}
	r = sxy / sqrt(sxx * syy);
	if (r > 1)
		r = 1;
	else if (r < -1)
		r = -1;
	*rho = r;
	df = (double)(n - 2);
	if (fabs(r) == 1) {
		*p = 0;
		goto out;
	}
	t = r * sqrt(df / ((r + 1) * (1 - r)));
	*p = 2 * stats_t_sf(fabs(t), df);
	if (*p > 1)
		*p = 1;
out:
	free(ry);
	free(rx);
	return ret;
}

/* A p-value and its position, sorted by p (ties keep their order, as a stable argsort). */
struct p_index {
	double p;
	size_t i;
};

static int cmp_p_index(const void *pa, const void *pb)
{
	const struct p_index *a = pa, *b = pb;

	if (a->p != b->p)
		return (a->p > b->p) - (a->p < b->p);
	return (a->i > b->i) - (a->i < b->i);
}

int stats_benjamini_hochberg(const double *p, size_t n, double *adjusted)
{
	struct p_index *s;
	double running = 1;
	size_t k;

	for (k = 0; k < n; k++)
		if (!(p[k] >= 0 && p[k] <= 1))
			return error("Benjamini-Hochberg: p-value %zu (%g) is outside [0, 1]", k,
				     p[k]);
	if (n == 0)
		return 0;
	s = xmallocarray(n, sizeof(*s));
	for (k = 0; k < n; k++) {
		s[k].p = p[k];
		s[k].i = k;
	}
	qsort(s, n, sizeof(*s), cmp_p_index);
	/* from the largest p down: p * n / rank, made monotone, capped at 1 */
	for (k = n; k-- > 0;) {
		double v = s[k].p * (double)n / (double)(k + 1);

		if (v < running)
			running = v;
		adjusted[s[k].i] = running;
	}
	free(s);
	return 0;
}
