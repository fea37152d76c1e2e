/*
 * Distribution functions: normal, incomplete beta, Student's t. See stats.h and
 * docs/statistics.md. References: Wichura, AS 241 (1988) for the normal quantile;
 * Numerical Recipes 6.4 / Didonato & Morris (TOMS 708) for the incomplete beta continued
 * fraction and the large-argument ln B(a, b); Hill, ACM Algorithm 396 (1970) for the
 * starting value of the t quantile.
 */
#include "analysis/stats.h"

#include <float.h>
#include <math.h>

#include "util/common.h"

#define LN_SQRT_2PI 0.918938533204672741780329736406 /* ln(sqrt(2 pi)) */

/* Above this many degrees of freedom t and normal differ by less than 1e-9 relative. */
#define T_DF_NORMAL 1e12

double stats_normal_cdf(double x)
{
	/* erfc keeps the relative accuracy of the lower tail that 1 + erf(x) would lose */
	return 0.5 * erfc(-x * M_SQRT1_2);
}

double stats_normal_sf(double x)
{
	return 0.5 * erfc(x * M_SQRT1_2);
}

/* c[0] + c[1] x + ... + c[n - 1] x^(n - 1) by Horner's rule. */
static double horner(const double *c, int n, double x)
{
	double v = c[n - 1];
	int i;

	for (i = n - 2; i >= 0; i--)
		v = v * x + c[i];
	return v;
}

/* AS 241 (PPND16) coefficients, lowest order first: centre, then the two tail regions. */
static const double as241_a[8] = {
    3.387132872796366608,  133.14166789178437745, 1971.5909503065514427, 13731.693765509461125,
    45921.953931549871457, 67265.770927008700853, 33430.575583588128105, 2509.0809287301226727,
};
static const double as241_b[8] = {
    1.0,
    42.313330701600911252,
    687.1870074920579083,
    5394.1960214247511077,
    21213.794301586595867,
    39307.89580009271061,
    28729.085735721942674,
    5226.495278852854561,
};
static const double as241_c[8] = {
    1.42343711074968357734,   4.6303378461565452959,	5.7694972214606914055,
    3.64784832476320460504,   1.27045825245236838258,	0.24178072517745061177,
    0.0227238449892691845833, 7.7454501427834140764e-4,
};
static const double as241_d[8] = {
    1.0,
    2.05319162663775882187,
    1.6763848301838038494,
    0.68976733498510000455,
    0.14810397642748007459,
    0.0151986665636164571966,
    5.475938084995344946e-4,
    1.05075007164441684324e-9,
};
static const double as241_e[8] = {
    6.6579046435011037772,     5.4637849111641143699,	  1.7848265399172913358,
    0.29656057182850489123,    0.026532189526576123093,	  0.0012426609473880784386,
    2.71155556874348757815e-5, 2.01033439929228813265e-7,
};
static const double as241_f[8] = {
    1.0,
    0.59983220655588793769,
    0.13692988092273580531,
    0.0148753612908506148525,
    7.868691311456132591e-4,
    1.8463183175100546818e-5,
    1.4215117583164458887e-7,
    2.04426310338993978564e-15,
};

double stats_normal_ppf(double p)
{
	double q, r, val;

	if (isnan(p) || p < 0 || p > 1)
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	q = p - 0.5;
	if (fabs(q) <= 0.425) {
		r = 0.180625 - q * q;
		return q * horner(as241_a, 8, r) / horner(as241_b, 8, r);
	}
	/* r = min(p, 1 - p); 1 - p is exact here because p > 0.5 */
	r = q > 0 ? 1 - p : p;
	r = sqrt(-log(r));
	if (r <= 5) {
		r -= 1.6;
		val = horner(as241_c, 8, r) / horner(as241_d, 8, r);
	} else {
		r -= 5;
		val = horner(as241_e, 8, r) / horner(as241_f, 8, r);
	}
	return q < 0 ? -val : val;
}

/*
 * lgamma(x) - Stirling's approximation ((x - 1/2) ln x - x + ln sqrt(2 pi)), for x >= 10:
 * the asymptotic series sum B_2k / (2k (2k - 1) x^(2k - 1)); its terms are below 1e-17
 * relative at x = 10 after the eighth.
 */
static double lgamma_correction(double x)
{
	/* B_2k / (2k (2k - 1)) for k = 1..8 */
	static const double stirling[8] = {
	    1.0 / 12,	-1.0 / 360,	 1.0 / 1260, -1.0 / 1680,
	    1.0 / 1188, -691.0 / 360360, 1.0 / 156,  -3617.0 / 122400,
	};

	return horner(stirling, 8, 1.0 / (x * x)) / x;
}

/* lgamma for x > 0 without touching the global signgam (thread safety). */
static double log_gamma(double x)
{
	int sign;

	return lgamma_r(x, &sign);
}

double stats_lbeta(double a, double b)
{
	double p = a < b ? a : b; /* p <= q */
	double q = a < b ? b : a;
	double corr;

	if (isnan(a) || isnan(b) || p <= 0)
		return NAN;
	if (isinf(q))
		return -INFINITY;
	if (p >= 10) {
		/* both large: Stirling for all three gammas, the big terms cancel analytically */
		corr = lgamma_correction(p) + lgamma_correction(q) - lgamma_correction(p + q);
		return -0.5 * log(q) + LN_SQRT_2PI + corr + (p - 0.5) * log(p / (p + q)) +
		       q * log1p(-p / (p + q));
	}
	if (q >= 10) {
		/* lgamma(q) - lgamma(p + q) by Stirling: no cancellation of two huge lgammas */
		corr = lgamma_correction(q) - lgamma_correction(p + q);
		return log_gamma(p) + corr + p - p * log(p + q) + (q - 0.5) * log1p(-p / (p + q));
	}
	return log_gamma(p) + log_gamma(q) - log_gamma(p + q);
}

/*
 * The continued fraction of I_x(a, b) (Numerical Recipes betacf, modified Lentz), given
 * x and y = 1 - x separately so that x near 1 loses nothing. Converges quickly for
 * x < (a + 1) / (a + b + 2), in about sqrt(max(a, b)) steps in the worst case.
 */
static double incbeta_cf(double a, double b, double x, double y)
{
	const double tiny = 1e-300;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d, h;
	double max_iter = 1000 + 20 * sqrt(a > b ? a : b);
	double m;

	/* 1 - (a + b) x / (a + 1) written without cancellation when x is close to 1 */
	d = x > 0.5 ? (1 - b + qab * y) / qap : 1 - qab * x / qap;
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= max_iter; m++) {
		double m2 = 2 * m, aa, del;

		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 2 * DBL_EPSILON)
			break;
	}
	return h;
}

/* x^a y^b / (a B(a, b)) * continued fraction: I_x(a, b) on its fast-converging side. */
static double incbeta_direct(double a, double b, double x, double y)
{
	double log_x = x > 0.5 ? log1p(-y) : log(x);
	double log_y = y > 0.5 ? log1p(-x) : log(y);
	double log_front = a * log_x + b * log_y - stats_lbeta(a, b) - log(a);

	return exp(log_front) * incbeta_cf(a, b, x, y);
}

/*
 * I_x(a, 1/2) for large a (a >= 50): the asymptotic expansion of DiDonato and Morris
 * (TOMS 708, BGRAT) in powers of 1/nu^2, nu = a - 1/4, around Q(1/2, z) = erfc(sqrt(z)),
 * z = -nu ln x. This is the t distribution with many degrees of freedom near its centre,
 * where the continued fraction converges slowly and cancels (1e-11 relative at df = 1e6).
 * Returns NAN when the expansion fails, so that the caller falls back.
 */
static double incbeta_large_a_half_b(double a, double x, double y)
{
	const double b = 0.5, bm1 = -0.5, eps = 1e-16;
	double c[30], d[30];
	double nu = a + 0.5 * bm1;
	double lnx = y > 0.375 ? log(x) : log1p(-y);
	double z = -nu * lnx;
	double r, u, q, v, t2, j, sum, t = 1, cn = 1, n2 = 0, log_ratio;
	int n, i;

	if (!(z > 0))
		return NAN;
	/* r = z^b e^-z / Gamma(b) */
	r = exp(-z) * sqrt(z / M_PI);
	/* ln(Gamma(a) / Gamma(a + b)) by Stirling, as in stats_lbeta */
	log_ratio = lgamma_correction(a) - lgamma_correction(a + b) + b - b * log(a + b) +
		    (a - 0.5) * log1p(-b / (a + b));
	u = r * exp(-(log_ratio + b * log(nu)));
	q = erfc(sqrt(z));
	if (r == 0 || u == 0 || q == 0)
		return 0; /* below the smallest double */
	v = 0.25 / (nu * nu);
	t2 = 0.25 * lnx * lnx;
	j = q / r;
	sum = j;
	for (n = 1; n <= 30; n++) {
		double bp2n = b + n2, s = 0, coef = b - n, dj;

		j = (bp2n * (bp2n + 1) * j + (z + bp2n + 1) * t) * v;
		n2 += 2;
		t *= t2;
		cn /= n2 * (n2 + 1);
		c[n - 1] = cn;
		for (i = 1; i <= n - 1; i++) {
			s += coef * c[i - 1] * d[n - i - 1];
			coef += b;
		}
		d[n - 1] = bm1 * cn + s / n;
		dj = d[n - 1] * j;
		sum += dj;
		if (sum <= 0)
			return NAN;
		if (fabs(dj) <= eps * sum)
			return u * sum;
	}
	return NAN;
}

/*
 * I_x(a, b) and its complement 1 - I_x(a, b) = I_y(b, a), both with full relative
 * accuracy on the smaller one; x + y == 1 (each given to avoid cancellation).
 */
static void incbeta_pair(double a, double b, double x, double y, double *ix, double *iy)
{
	double v;

	if (x <= 0) {
		*ix = 0;
		*iy = 1;
		return;
	}
	if (y <= 0) {
		*ix = 1;
		*iy = 0;
		return;
	}
	if (x < (a + 1) / (a + b + 2)) {
		v = NAN;
		if (b == 0.5 && a >= 50)
			v = incbeta_large_a_half_b(a, x, y);
		if (isnan(v))
			v = incbeta_direct(a, b, x, y);
		*ix = v;
		*iy = 1 - v;
	} else {
		v = incbeta_direct(b, a, y, x);
		*iy = v;
		*ix = 1 - v;
	}
}

double stats_incbeta(double a, double b, double x)
{
	double ix, iy;

	if (isnan(a) || isnan(b) || isnan(x) || a <= 0 || b <= 0 || x < 0 || x > 1)
		return NAN;
	incbeta_pair(a, b, x, 1 - x, &ix, &iy);
	return ix;
}

double stats_t_pdf(double t, double df)
{
	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	if (isinf(t))
		return 0;
	if (df > T_DF_NORMAL)
		return exp(-0.5 * t * t - LN_SQRT_2PI);
	/* Gamma((v+1)/2) / (sqrt(v pi) Gamma(v/2)) = 1 / (sqrt(v) B(v/2, 1/2)) */
	return exp(-0.5 * (df + 1) * log1p(t * t / df) - 0.5 * log(df) -
		   stats_lbeta(0.5 * df, 0.5));
}

/*
 * x = df / (df + s^2) and y = 1 - x from u = s / sqrt(df), each formed directly so that
 * neither cancels (small u) nor overflows (large u).
 */
static void t_beta_args(double u, double *x, double *y)
{
	double r;
	if (u < 1) {
		r = u * u;
		*x = 1 / (1 + r);
		*y = r / (1 + r);
	} else {
		r = 1 / u;
		r *= r;
		*x = r / (1 + r);
		*y = 1 / (1 + r);
	}
}

/*
 * P(T > s) for s >= 0: 0.5 * I_x(df/2, 1/2) with x = df / (df + s^2). x and 1 - x are
 * formed from s / sqrt(df) so that neither cancels nor overflows early.
 */
static double t_upper_tail(double s, double df)
{
	double u = s / sqrt(df), x, y, ix, iy;

	if (df > T_DF_NORMAL)
		return stats_normal_sf(s);
	t_beta_args(u, &x, &y);
	incbeta_pair(0.5 * df, 0.5, x, y, &ix, &iy);
	return 0.5 * ix;
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	if (isinf(t))
		return t < 0 ? 0 : 1;
	tail = t_upper_tail(fabs(t), df);
	return t < 0 ? tail : 1 - tail;
}

double stats_t_sf(double t, double df)
{
	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	return stats_t_cdf(-t, df);
}

/*
 * A starting value for the lower-tail quantile (0 < q < 0.5, result < 0): exact for
 * df = 1 and 2, else Hill's approximation (ACM Algorithm 396), good to a few digits.
 */
static double t_ppf_start(double q, double df)
{
	double a, b, c, d, x, y, p2 = 2 * q;

	if (df == 1)
		return q < 0.25 ? -1 / tan(M_PI * q) : -tan(M_PI * (0.5 - q));
	if (df == 2)
		return (p2 - 1) / sqrt(p2 * (1 - q));
	a = 1 / (df - 0.5);
	b = 48 / (a * a);
	c = ((20700 * a / b - 98) * a - 16) * a + 96.36;
	d = ((94.5 / (b + c) - 3) / b + 1) * sqrt(a * M_PI_2) * df;
	y = pow(d * p2, 2 / df);
	if (!(y >= DBL_EPSILON))
		return -1; /* extreme tail: let the solver's bracketing find it */
	if ((df < 2.1 && p2 > 0.5) || y > 0.05 + a) {
		/* asymptotic inverse expansion about the normal */
		x = stats_normal_ppf(q);
		y = x * x;
		if (df < 5)
			c += 0.3 * (df - 4.5) * (x + 0.6);
		c = (((0.05 * d * x - 5) * x - 7) * x - 2) * x + b + c;
		y = (((((0.4 * y + 6.3) * y + 36) * y + 94.5) / c - y - 3) / b + 1) * x;
		y = expm1(a * y * y);
	} else {
		y = ((1 / (((df + 6) / (df * y) - 0.089 * d - 0.822) * (df + 2) * 3) +
		      0.5 / (df + 4)) *
			 y -
		     1) *
			(df + 1) / (df + 2) +
		    1 / y;
	}
	return -sqrt(df * y);
}

/* P(0 < T < s) for s >= 0, computed directly (not as 0.5 - tail) so that it keeps its
 * relative accuracy for small s. */
static double t_central(double s, double df)
{
	double u = s / sqrt(df), x, y, ix, iy;

	if (df > T_DF_NORMAL)
		return 0.5 * erf(s * M_SQRT1_2);
	t_beta_args(u, &x, &y);
	incbeta_pair(0.5 * df, 0.5, x, y, &ix, &iy);
	return 0.5 * iy;
}

/*
 * One safeguarded Newton step for the lower-tail quantile: the iterate t < 0, the bracket
 * [lo, hi] (already updated with t), and the Newton proposal; a proposal outside the
 * bracket becomes a bisection (geometric when the bracket spans decades).
 */
static double t_ppf_safeguard(double t, double next, double lo, double hi)
{
	if (next > lo && next < hi && isfinite(next))
		return next;
	if (isinf(lo))
		return 2 * (hi < 0 ? hi : t);
	if (hi < 0 && lo / hi > 4)
		return -exp(0.5 * (log(-lo) + log(-hi)));
	return 0.5 * (lo + hi);
}

/*
 * Solves F(t) = q for t < 0 (0 < q < 0.5) inside a bracket [lo, hi].
 * In the tails (q <= 1/4) the equation is log F(t) = log q and Newton steps are taken in
 * w = ln(-t), where log F is nearly linear (F ~ c |t|^-df): quadratic convergence from far
 * away too. Near the centre it is P(t < T < 0) = 1/2 - q (exact in floating point there),
 * solved by plain Newton in t, so that quantiles close to 0 keep their relative accuracy.
 */
static double t_ppf_lower(double q, double df)
{
	bool central = q > 0.25;
	double t = t_ppf_start(q, df);
	double lo = -INFINITY, hi = 0, log_q = log(q), half_minus_q = 0.5 - q;
	int iter;

	if (!(t < 0) || !isfinite(t))
		t = -1;
	for (iter = 0; iter < 300; iter++) {
		double g, next, pdf = stats_t_pdf(t, df);

		if (central) {
			/* g > 0 when t is not far enough left, as in the tail form */
			g = half_minus_q - t_central(-t, df);
			next = t - g / pdf;
		} else {
			double cdf = t_upper_tail(-t, df);

			g = log(cdf) - log_q;
			next = t * exp(-g * cdf / (pdf * t));
		}
		if (g == 0)
			return t;
		if (g > 0)
			hi = t;
		else
			lo = t;
		next = t_ppf_safeguard(t, next, lo, hi);
		if (fabs(next - t) <= 2 * DBL_EPSILON * fabs(next) || next == 0 || isinf(next))
			return next;
		t = next;
	}
	return t;
}

double stats_t_ppf(double p, double df)
{
	if (isnan(p) || isnan(df) || df <= 0 || p < 0 || p > 1)
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (p == 0.5)
		return 0;
	if (df > T_DF_NORMAL)
		return stats_normal_ppf(p);
	/* symmetric; 1 - p is exact for p >= 0.5 */
	return p < 0.5 ? t_ppf_lower(p, df) : -t_ppf_lower(1 - p, df);
}
