/*
 * Hypothesis tests: Welch, TOST, Mann-Whitney U, Shapiro-Wilk, Spearman, and the
 * Benjamini-Hochberg adjustment. See stats.h and docs/statistics.md.
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

int stats_welch(const double *a, size_t n_a, const double *b, size_t n_b, double alpha,
		struct stats_welch_result *out)
{
	double q;

	if (!(alpha > 0 && alpha < 1))
		return error("Welch test: alpha %g is outside (0, 1)", alpha);
	if (welch_core(a, n_a, b, n_b, out, "Welch test") < 0)
		return -1;
	if (out->se > 0) {
		q = stats_t_ppf(1 - alpha / 2, out->df);
		out->ci_lo = out->diff - q * out->se;
		out->ci_hi = out->diff + q * out->se;
	}
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
	struct stats_welch_result w;
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
	struct stats_welch_result w;
	double p_low, p_high;

	if (!(low < high))
		return error("equivalence test: bounds [%g, %g] are empty", low, high);
	if (welch_core(a, n_a, b, n_b, &w, "equivalence test") < 0)
		return -1;
	if (w.se == 0) {
		*p_tost = low < w.diff && w.diff < high ? 0 : 1;
		return 0;
	}
	/* H0 diff <= low, rejected for large t; H0 diff >= high, rejected for small t */
	p_low = stats_t_sf((w.diff - low) / w.se, w.df);
	p_high = stats_t_cdf((w.diff - high) / w.se, w.df);
	*p_tost = p_low > p_high ? p_low : p_high;
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

/*
 * Shapiro-Wilk, transcribed from Royston's AS R94 Fortran (swilk.f as shipped by SciPy)
 * for the uncensored case. The Fortran works in REAL (single precision), and SciPy hands
 * it float32 data, so this code uses float where the original uses REAL, with the same
 * operation order: that is what makes W and p agree with SciPy to the last float bit.
 */

/* AS 181.2: c[0] + c[1] x + ... + c[nord - 1] x^(nord - 1), evaluated as the original. */
static float sw_poly(const float *c, int nord, float x)
{
	float ret = c[0], p;
	int j;

	if (nord == 1)
		return ret;
	p = x * c[nord - 1];
	for (j = nord - 2; j >= 1; j--)
		p = (p + c[j]) * x;
	return ret + p;
}

/* AS 111: normal quantile in single precision (the coefficients the W test was fit with). */
static float sw_ppnd(float p)
{
	float q = p - 0.5f, r, v;

	if (fabsf(q) <= 0.42f) {
		r = q * q;
		return q *
		       (((-25.44106049637f * r + 41.39119773534f) * r + -18.61500062529f) * r +
			2.50662823884f) /
		       ((((3.13082909833f * r + -21.06224101826f) * r + 23.08336743743f) * r +
			 -8.47351093090f) *
			    r +
			1.0f);
	}
	r = q > 0 ? 1.0f - p : p;
	if (r <= 0)
		return 0;
	r = sqrtf(-logf(r));
	v = (((2.32121276858f * r + 4.85014127135f) * r + -2.29796479134f) * r + -2.78718931138f) /
	    ((1.63706781897f * r + 3.54388924762f) * r + 1.0f);
	return q < 0 ? -v : v;
}

/* ALNORM (AS 66, double precision as in swilk.f): the upper tail of the normal at x. */
static double sw_alnorm_upper(double x)
{
	const double ltone = 7.0, utzero = 38.0, con = 1.28;
	bool up = true;
	double z = x, y, v;

	if (z < 0) {
		up = false;
		z = -z;
	}
	if (!(z <= ltone || (up && z <= utzero))) {
		v = 0;
	} else {
		y = 0.5 * z * z;
		if (z > con)
			v = 0.398942280385 * exp(-y) /
			    (z - 3.8052e-8 +
			     1.00000615302 /
				 (z + 3.98064794e-4 +
				  1.98615381364 /
				      (z - 0.151679116635 +
				       5.29330324926 /
					   (z + 4.8385912808 -
					    15.1508972451 /
						(z + 0.742380924027 +
						 30.789933034 / (z + 3.99019417011))))));
		else
			v = 0.5 - z * (0.398942280444 -
				       0.399903438504 * y /
					   (y + 5.75885480458 -
					    29.8213557808 / (y + 2.62433121679 +
							     48.6959930692 / (y + 5.92885724438))));
	}
	return up ? v : 1 - v;
}

/* The coefficients a[0..n/2-1] of the W statistic (Royston's approximation). */
static void sw_coefficients(int n, float *a)
{
	static const float c1[6] = {0.0f, 0.221157f, -0.147981f, -2.07119f, 4.434685f, -2.706056f};
	static const float c2[6] = {0.0f, 0.042981f, -0.293762f, -1.752461f, 5.682633f, -3.582633f};
	int nn2 = n / 2, i, i1;
	float an = (float)n, an25, summ2 = 0, ssumm2, rsn, a1, a2, fac;

	if (n == 3) {
		a[0] = 0.70711f;
		return;
	}
	an25 = an + 0.25f;
	for (i = 1; i <= nn2; i++) {
		a[i - 1] = sw_ppnd(((float)i - 0.375f) / an25);
		summ2 = summ2 + a[i - 1] * a[i - 1];
	}
	summ2 = summ2 * 2.0f;
	ssumm2 = sqrtf(summ2);
	rsn = 1.0f / sqrtf(an);
	a1 = sw_poly(c1, 6, rsn) - a[0] / ssumm2;
	if (n > 5) {
		i1 = 3;
		a2 = -a[1] / ssumm2 + sw_poly(c2, 6, rsn);
		fac = sqrtf((summ2 - 2.0f * (a[0] * a[0]) - 2.0f * (a[1] * a[1])) /
			    (1.0f - 2.0f * (a1 * a1) - 2.0f * (a2 * a2)));
		a[1] = a2;
	} else {
		i1 = 2;
		fac = sqrtf((summ2 - 2.0f * (a[0] * a[0])) / (1.0f - 2.0f * (a1 * a1)));
	}
	a[0] = a1;
	for (i = i1; i <= nn2; i++)
		a[i - 1] = -a[i - 1] / fac;
}

/* The signed coefficient of the i-th order statistic (1-based, j = n + 1 - i). */
static float sw_coef(const float *a, int i, int j)
{
	return (float)(i > j ? 1 : -1) * a[(i < j ? i : j) - 1];
}

/* W and its p-value from sorted float data x[0..n-1]; returns false on zero range. */
static bool sw_compute(const float *x, int n, const float *a, float *w_out, float *pw_out)
{
	static const float c3[4] = {0.5440f, -0.39978f, 0.025054f, -6.714e-4f};
	static const float c4[4] = {1.3822f, -0.77857f, 0.062767f, -0.0020322f};
	static const float c5[4] = {-1.5861f, -0.31082f, -0.083751f, 0.0038915f};
	static const float c6[3] = {-0.4803f, -0.082676f, 0.0030302f};
	static const float g[2] = {-2.273f, 0.459f};
	const float small = 1e-19f;
	float range = x[n - 1] - x[0], xx, sx, sa, xi, ssa = 0, ssx = 0, sax = 0, asa, xsx;
	float ssassx, w1, w, y, m, s, gamma, an = (float)n;
	int i, j;

	if (range < small)
		return false;
	xx = x[0] / range;
	sx = xx;
	sa = -a[0];
	for (i = 2, j = n - 1; i <= n; i++, j--) {
		xi = x[i - 1] / range;
		sx = sx + xi;
		if (i != j)
			sa = sa + sw_coef(a, i, j);
		xx = xi;
	}
	sa = sa / (float)n;
	sx = sx / (float)n;
	for (i = 1, j = n; i <= n; i++, j--) {
		asa = i != j ? sw_coef(a, i, j) - sa : -sa;
		xsx = x[i - 1] / range - sx;
		ssa = ssa + asa * asa;
		ssx = ssx + xsx * xsx;
		sax = sax + asa * xsx;
	}
	/* 1 - W computed directly, to avoid rounding error for W very near 1 */
	ssassx = sqrtf(ssa * ssx);
	w1 = (ssassx - sax) * (ssassx + sax) / (ssa * ssx);
	w = 1.0f - w1;
	*w_out = w;
	if (n == 3) {
		/* exact for n = 3 */
		*pw_out = 1.909859f * (asinf(sqrtf(w)) - 1.047198f);
		return true;
	}
	y = logf(w1);
	xx = logf(an);
	if (n <= 11) {
		gamma = sw_poly(g, 2, an);
		if (y >= gamma) {
			*pw_out = small;
			return true;
		}
		y = -logf(gamma - y);
		m = sw_poly(c3, 4, an);
		s = expf(sw_poly(c4, 4, an));
	} else {
		m = sw_poly(c5, 4, xx);
		s = expf(sw_poly(c6, 3, xx));
	}
	*pw_out = (float)sw_alnorm_upper((double)((y - m) / s));
	return true;
}

int stats_shapiro_wilk(const double *x, size_t n, double *w, double *p)
{
	double *sorted = NULL, median;
	float *xf = NULL, *a = NULL, wf = 1.0f, pwf = 1.0f;
	size_t i;
	int ret = -1;

	if (n < 3 || n > 5000)
		return error("Shapiro-Wilk test needs 3 to 5000 values, got %zu", n);
	if (require_finite(x, n, "Shapiro-Wilk test") < 0)
		return -1;
	sorted = xmallocarray(n, sizeof(*sorted));
	xf = xmallocarray(n, sizeof(*xf));
	a = xmallocarray(n / 2, sizeof(*a));
	memcpy(sorted, x, n * sizeof(*x));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	/*
	 * As scipy.stats.shapiro (1.10): center on the median in double precision, then hand
	 * float32 values to the Fortran. Centering first keeps the float rounding of the data
	 * small; the median (numpy's, the mean of the two middle values for even n) is what
	 * makes W agree to the last bit.
	 */
	median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	for (i = 0; i < n; i++)
		xf[i] = (float)(sorted[i] - median);
	sw_coefficients((int)n, a);
	if (!sw_compute(xf, (int)n, a, &wf, &pwf)) {
		/* zero range: swilk.f returns W = 1, p = 1 (SciPy warns) */
		wf = 1.0f;
		pwf = 1.0f;
	}
	*w = wf;
	*p = pwf;
	ret = 0;
	free(a);
	free(xf);
	free(sorted);
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
