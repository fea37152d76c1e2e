/*
 * Shapiro-Wilk W test: Royston's algorithm AS R94 (Applied Statistics 44(4), 1995),
 * transcribed from the Fortran swilk.f that SciPy ships, for the uncensored case. See
 * stats.h and docs/statistics.md.
 *
 * The Fortran works in REAL (single precision) and SciPy hands it float32 data, so this
 * code uses float wherever the original uses REAL, with the same operation order: that is
 * what makes W and p agree with SciPy bit for bit (p is sensitive: one float ulp of W moves
 * it by 1e-5 relative for large n). Fused multiply-adds would change the rounding, so
 * contraction is turned off for this file whatever the build flags.
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "analysis/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

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

/*
 * AS 111: normal quantile in single precision (the one the W coefficients were fit with).
 * sw_poly performs exactly the operations of the original nested expressions.
 */
static float sw_ppnd(float p)
{
	static const float a[4] = {2.50662823884f, -18.61500062529f, 41.39119773534f,
				   -25.44106049637f};
	static const float b[5] = {1.0f, -8.47351093090f, 23.08336743743f, -21.06224101826f,
				   3.13082909833f};
	static const float c[4] = {-2.78718931138f, -2.29796479134f, 4.85014127135f,
				   2.32121276858f};
	static const float d[3] = {1.0f, 3.54388924762f, 1.63706781897f};
	float q = p - 0.5f, r, v;

	if (fabsf(q) <= 0.42f) {
		r = q * q;
		return q * sw_poly(a, 4, r) / sw_poly(b, 5, r);
	}
	r = q > 0 ? 1.0f - p : p;
	if (r <= 0)
		return 0;
	r = sqrtf(-logf(r));
	v = sw_poly(c, 4, r) / sw_poly(d, 3, r);
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
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return error("Shapiro-Wilk test: value %zu is not finite", i);
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
