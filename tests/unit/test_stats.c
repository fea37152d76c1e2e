/*
 * Unit tests of the statistics module. The core is table-driven by
 * tests/data/stats-reference.json (computed with SciPy): every value in it is reproduced
 * to 1e-6 relative, and a section of the file without a checker here fails the suite.
 * Further tests check accuracy beyond the file (closed forms, round trips) and errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "analysis/stats.h"
#include "util/common.h"

#define REL_TOL 1e-6   /* the contract of METHODS.md section 2 */
#define ZERO_TOL 1e-12 /* absolute, for reference values that are ~0 (t_ppf at p = 0.5) */

static json_t *reference;

static int load_reference(void **state)
{
	json_error_t err;
	UNUSED(state);
	reference = json_load_file(TESTDATA_DIR "/stats-reference.json", 0, &err);
	if (!reference) {
		fprintf(stderr, "%s:%d: %s\n", TESTDATA_DIR "/stats-reference.json", err.line,
			err.text);
		return -1;
	}
	return 0;
}

static int free_reference(void **state)
{
	UNUSED(state);
	json_decref(reference);
	return 0;
}

/* Fails unless got is within rel of want (or within ZERO_TOL when want is ~0). */
static void check_close_tol(double got, double want, double rel, const char *what, size_t row)
{
	double diff = fabs(got - want);
	bool ok = fabs(want) < ZERO_TOL ? diff <= ZERO_TOL : diff <= rel * fabs(want);

	if (!ok)
		fail_msg("%s, row %zu: got %.17g, want %.17g (relative error %.3g)", what, row, got,
			 want, want != 0 ? diff / fabs(want) : diff);
}

static void check_close(double got, double want, const char *what, size_t row)
{
	check_close_tol(got, want, REL_TOL, what, row);
}

static double num(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	if (!json_is_number(v))
		fail_msg("reference: \"%s\" is missing or not a number", key);
	return json_number_value(v);
}

/* The numbers of a JSON array, in a new array of *n values (the caller frees). */
static double *nums(const json_t *obj, const char *key, size_t *n)
{
	json_t *arr = json_object_get(obj, key), *v;
	double *x;
	size_t i;

	if (!json_is_array(arr))
		fail_msg("reference: \"%s\" is missing or not an array", key);
	*n = json_array_size(arr);
	x = xmallocarray(*n ? *n : 1, sizeof(*x));
	json_array_foreach(arr, i, v)
	{
		if (!json_is_number(v))
			fail_msg("reference: %s[%zu] is not a number", key, i);
		x[i] = json_number_value(v);
	}
	return x;
}

static json_t *section(const char *name)
{
	json_t *s = json_object_get(reference, name);
	if (!s)
		fail_msg("reference: section \"%s\" is missing", name);
	return s;
}

/* ---- one checker per section of the reference file; each returns the rows it checked */

static size_t check_t_cdf(const json_t *rows)
{
	json_t *r;
	size_t i;
	json_array_foreach(rows, i, r)
	    check_close(stats_t_cdf(num(r, "t"), num(r, "df")), num(r, "cdf"), "t_cdf", i);
	return i;
}

static size_t check_t_ppf(const json_t *rows)
{
	json_t *r;
	size_t i;
	json_array_foreach(rows, i, r)
	    check_close(stats_t_ppf(num(r, "p"), num(r, "df")), num(r, "t"), "t_ppf", i);
	return i;
}

static size_t check_normal_ppf(const json_t *rows)
{
	json_t *r;
	size_t i;
	json_array_foreach(rows, i, r)
	    check_close(stats_normal_ppf(num(r, "p")), num(r, "z"), "normal_ppf", i);
	return i;
}

static size_t check_welch(const json_t *rows)
{
	json_t *r;
	size_t i;
	json_array_foreach(rows, i, r)
	{
		size_t na, nb;
		double *a = nums(r, "a", &na), *b = nums(r, "b", &nb), *ci;
		json_t *lg = json_object_get(r, "log");
		struct stats_welch_result w;
		struct stats_welch_log_result wl;
		size_t nci;

		assert_int_equal(stats_welch(a, na, b, nb, 0.05, &w), 0);
		check_close(w.t, num(r, "t_b_minus_a"), "welch t", i);
		check_close(w.df, num(r, "df"), "welch df", i);
		check_close(w.p, num(r, "p_two_sided"), "welch p", i);

		assert_non_null(lg);
		assert_int_equal(stats_welch_log(a, na, b, nb, 0.01, &wl), 0);
		check_close(wl.t, num(lg, "t"), "welch log t", i);
		check_close(wl.df, num(lg, "df"), "welch log df", i);
		check_close(wl.p, num(lg, "p_two_sided"), "welch log p", i);
		check_close(wl.ratio, num(lg, "ratio_geomean_b_over_a"), "welch log ratio", i);
		ci = nums(lg, "ci99_ratio", &nci);
		assert_int_equal(nci, 2);
		check_close(wl.ci_lo, ci[0], "welch log ci99 lo", i);
		check_close(wl.ci_hi, ci[1], "welch log ci99 hi", i);
		free(ci);
		free(a);
		free(b);
	}
	return i;
}

static size_t check_tost(const json_t *rows)
{
	json_t *r;
	size_t i;
	json_array_foreach(rows, i, r)
	{
		size_t na, nb;
		double *a = nums(r, "a", &na), *b = nums(r, "b", &nb), p;

		assert_int_equal(stats_tost_log(a, na, b, nb, num(r, "margin_ratio"), &p), 0);
		check_close(p, num(r, "p_tost"), "tost_log_welch p", i);
		free(a);
		free(b);
	}
	return i;
}

static size_t check_mann_whitney(const json_t *rows)
{
	json_t *r;
	size_t i;
	json_array_foreach(rows, i, r)
	{
		size_t na, nb;
		double *a = nums(r, "a", &na), *b = nums(r, "b", &nb);
		struct stats_mw_result mw;

		assert_int_equal(stats_mann_whitney(a, na, b, nb, true, &mw), 0);
		check_close(mw.u_a, num(r, "U_a"), "mann_whitney U_a", i);
		check_close(mw.p_asymptotic, num(r, "p_asymptotic_cc"), "mann_whitney p", i);
		if (json_object_get(r, "p_exact")) {
			assert_false(mw.ties);
			check_close(mw.p_exact, num(r, "p_exact"), "mann_whitney p_exact", i);
		} else {
			/* SciPy has no exact p with ties; neither do we */
			assert_true(mw.ties);
			assert_true(isnan(mw.p_exact));
		}
		free(a);
		free(b);
	}
	return i;
}

static size_t check_shapiro_wilk(const json_t *rows)
{
	json_t *r;
	size_t i;
	json_array_foreach(rows, i, r)
	{
		size_t n;
		double *x = nums(r, "x", &n), w, p;

		assert_int_equal(stats_shapiro_wilk(x, n, &w, &p), 0);
		check_close(w, num(r, "W"), "shapiro_wilk W", i);
		check_close(p, num(r, "p"), "shapiro_wilk p", i);
		free(x);
	}
	return i;
}

static size_t check_percentile(const json_t *rows)
{
	json_t *r;
	size_t i, k;
	json_array_foreach(rows, i, r)
	{
		size_t n, nq, nv;
		double *x = nums(r, "x", &n), *q = nums(r, "q", &nq), *v = nums(r, "values", &nv);
		double *got = xmallocarray(nq, sizeof(*got));

		assert_int_equal(nq, nv);
		assert_int_equal(stats_percentiles(x, n, q, nq, got), 0);
		for (k = 0; k < nq; k++) {
			check_close(got[k], v[k], "percentile_linear", i);
			check_close(stats_percentile(x, n, q[k]), v[k], "percentile_linear", i);
		}
		free(got);
		free(v);
		free(q);
		free(x);
	}
	return i;
}

static size_t check_kde(const json_t *rows)
{
	json_t *r;
	size_t i, k;
	json_array_foreach(rows, i, r)
	{
		size_t n, ng, nd;
		double *x = nums(r, "x", &n), *grid = nums(r, "grid", &ng);
		double *want = nums(r, "density", &nd), *got = xmallocarray(ng, sizeof(*got));
		const char *method = json_string_value(json_object_get(r, "bw_method"));
		enum stats_bw bw = STATS_BW_SCOTT; /* fail_msg() does not return either way */

		assert_non_null(method);
		if (strcmp(method, "scott") == 0)
			bw = STATS_BW_SCOTT;
		else if (strcmp(method, "silverman") == 0)
			bw = STATS_BW_SILVERMAN;
		else
			fail_msg("gaussian_kde: unknown bw_method \"%s\"", method);
		check_close(stats_kde_factor(n, bw), num(r, "bandwidth_factor"), "kde factor", i);
		assert_int_equal(ng, nd);
		assert_int_equal(stats_gaussian_kde(x, n, bw, grid, ng, got), 0);
		for (k = 0; k < ng; k++)
			check_close(got[k], want[k], "gaussian_kde density", i);
		free(got);
		free(want);
		free(grid);
		free(x);
	}
	return i;
}

static size_t check_linreg(const json_t *r)
{
	size_t n, ny;
	double *x = nums(r, "x", &n), *y = nums(r, "y", &ny);
	struct stats_linreg lr;

	assert_int_equal(n, ny);
	assert_int_equal(stats_linear_regression(x, y, n, &lr), 0);
	check_close(lr.slope, num(r, "slope"), "linear_regression slope", 0);
	check_close(lr.intercept, num(r, "intercept"), "linear_regression intercept", 0);
	check_close(lr.r, num(r, "r"), "linear_regression r", 0);
	free(x);
	free(y);
	return 1;
}

static size_t check_spearman(const json_t *r)
{
	size_t n, ny;
	double *x = nums(r, "x", &n), *y = nums(r, "y", &ny), rho, p;

	assert_int_equal(n, ny);
	assert_int_equal(stats_spearman(x, y, n, &rho, &p), 0);
	check_close(rho, num(r, "rho"), "spearman rho", 0);
	check_close(p, num(r, "p"), "spearman p", 0);
	free(x);
	free(y);
	return 1;
}

static size_t check_bh(const json_t *r)
{
	size_t n, na, k;
	double *p = nums(r, "p", &n), *want = nums(r, "adjusted", &na);
	double *got = xmallocarray(n, sizeof(*got));

	assert_int_equal(n, na);
	assert_int_equal(stats_benjamini_hochberg(p, n, got), 0);
	for (k = 0; k < n; k++)
		check_close(got[k], want[k], "benjamini_hochberg", k);
	/* in place, and in a shuffled order: each adjusted value stays with its p */
	for (k = 0; k < n / 2; k++) {
		double t = p[k];
		p[k] = p[n - 1 - k];
		p[n - 1 - k] = t;
	}
	assert_int_equal(stats_benjamini_hochberg(p, n, p), 0);
	for (k = 0; k < n; k++)
		check_close(p[k], want[n - 1 - k], "benjamini_hochberg reversed", k);
	free(got);
	free(want);
	free(p);
	return n;
}

static const struct reference_checker {
	const char *section;
	size_t (*check)(const json_t *section);
} checkers[] = {
    {"t_cdf", check_t_cdf},
    {"t_ppf", check_t_ppf},
    {"normal_ppf", check_normal_ppf},
    {"welch", check_welch},
    {"tost_log_welch", check_tost},
    {"mann_whitney", check_mann_whitney},
    {"shapiro_wilk", check_shapiro_wilk},
    {"percentile_linear", check_percentile},
    {"gaussian_kde", check_kde},
    {"linear_regression", check_linreg},
    {"spearman", check_spearman},
    {"benjamini_hochberg", check_bh},
};

static void test_reference_values(void **state)
{
	size_t i;
	UNUSED(state);
	for (i = 0; i < ARRAY_SIZE(checkers); i++)
		if (checkers[i].check(section(checkers[i].section)) == 0)
			fail_msg("reference section \"%s\" has no rows", checkers[i].section);
}

/* Every section of the reference file has a checker: nothing in it goes untested. */
static void test_reference_fully_covered(void **state)
{
	const char *key;
	json_t *value;
	UNUSED(state);
	json_object_foreach(reference, key, value)
	{
		size_t i;
		bool found = strcmp(key, "generator") == 0;

		for (i = 0; i < ARRAY_SIZE(checkers); i++)
			found = found || strcmp(key, checkers[i].section) == 0;
		if (!found)
			fail_msg("reference section \"%s\" is not checked by test_stats", key);
	}
}

/* ---- accuracy beyond the reference file */

/* Closed forms: df = 1 is Cauchy, df = 2 has F(t) = 1/2 + t / (2 sqrt(2 + t^2)). */
static void test_t_cdf_closed_forms(void **state)
{
	static const double ts[] = {-1e8, -3e4, -250, -17.5, -3, -1, -0.01, 0, 0.4, 2, 60, 1e5};
	size_t i;
	UNUSED(state);
	for (i = 0; i < ARRAY_SIZE(ts); i++) {
		double t = ts[i];
		/* lower tails from atan/sqrt without cancellation */
		double cauchy = t < 0 ? atan(-1 / t) / M_PI : 0.5 + atan(t) / M_PI;
		double root = sqrt(2 + t * t);
		double df2 = t < 0 ? 1 / (root * (root - t)) : 0.5 + t / (2 * root);
		check_close_tol(stats_t_cdf(t, 1), cauchy, 1e-12, "t_cdf df=1", i);
		check_close_tol(stats_t_cdf(t, 2), df2, 1e-12, "t_cdf df=2", i);
		check_close_tol(stats_t_sf(-t, 1), cauchy, 1e-12, "t_sf df=1", i);
	}
}

/* ppf(cdf) round trips over df 1..1e6 and p 1e-10..1-1e-10 (the module's promise). */
static void test_t_ppf_round_trip(void **state)
{
	static const double dfs[] = {1, 1.5, 2, 3, 5.5, 12, 30, 99.5, 1e3, 2.5e4, 1e6};
	static const double ps[] = {1e-10,     1e-7,	  1e-4, 0.003, 0.05,	 0.3,
				    0.4999999, 0.5000001, 0.77, 0.99,  1 - 1e-6, 1 - 1e-10};
	size_t i, j;
	UNUSED(state);
	for (i = 0; i < ARRAY_SIZE(dfs); i++)
		for (j = 0; j < ARRAY_SIZE(ps); j++) {
			double t = stats_t_ppf(ps[j], dfs[i]);
			double p = stats_t_cdf(t, dfs[i]);
			/* compare the smaller tail, where relative accuracy matters */
			if (ps[j] > 0.5)
				check_close_tol(1 - p, 1 - ps[j], 1e-9, "t round trip",
						i * 100 + j);
			else
				check_close_tol(p, ps[j], 1e-11, "t round trip", i * 100 + j);
			assert_true(ps[j] < 0.5 ? t < 0 : t > 0);
		}
	assert_true(stats_t_ppf(0.5, 7) == 0);
	assert_true(stats_t_ppf(0, 7) == -INFINITY);
	assert_true(stats_t_ppf(1, 7) == INFINITY);
	assert_true(isnan(stats_t_ppf(1.5, 7)));
	assert_true(isnan(stats_t_ppf(0.3, 0)));
	assert_true(isnan(stats_t_cdf(0.3, -1)));
}

/* The normal: symmetric, tails without cancellation, ppf inverting cdf. */
static void test_normal(void **state)
{
	static const double ps[] = {1e-300, 1e-20, 1e-10, 1e-4, 0.02, 0.3, 0.5, 0.8, 0.99};
	size_t i;
	UNUSED(state);
	check_close_tol(stats_normal_cdf(-1.959963984540054), 0.025, 1e-14, "normal_cdf", 0);
	check_close_tol(stats_normal_sf(10), 7.619853024160527e-24, 1e-13, "normal_sf", 0);
	check_close_tol(stats_normal_cdf(-10), 7.619853024160527e-24, 1e-13, "normal_cdf", 1);
	for (i = 0; i < ARRAY_SIZE(ps); i++)
		check_close_tol(stats_normal_cdf(stats_normal_ppf(ps[i])), ps[i], 1e-13,
				"normal round trip", i);
	assert_true(stats_normal_ppf(0) == -INFINITY);
	assert_true(isnan(stats_normal_ppf(-0.1)));
}

/* I_x(a, b) against closed forms: I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b. */
static void test_incbeta(void **state)
{
	static const double xs[] = {1e-8, 0.01, 0.3, 0.5, 0.77, 0.999};
	static const double as[] = {0.5, 1, 3.7, 40, 900};
	size_t i, j;
	UNUSED(state);
	for (i = 0; i < ARRAY_SIZE(xs); i++)
		for (j = 0; j < ARRAY_SIZE(as); j++) {
			double x = xs[i], a = as[j];
			check_close_tol(stats_incbeta(a, 1, x), pow(x, a), 1e-12, "I_x(a,1)", i);
			check_close_tol(stats_incbeta(1, a, x), -expm1(a * log1p(-x)), 1e-12,
					"I_x(1,b)", i);
		}
	assert_true(stats_incbeta(2, 3, 0) == 0);
	assert_true(stats_incbeta(2, 3, 1) == 1);
	assert_true(isnan(stats_incbeta(-2, 3, 0.5)));
	check_close_tol(stats_lbeta(3, 4), log(1.0 / 60), 1e-14, "lbeta", 0);
	check_close_tol(stats_lbeta(2e6, 0.5), lgamma(2e6) + lgamma(0.5) - lgamma(2e6 + 0.5), 1e-8,
			"lbeta large", 0);
}

/* Exact Mann-Whitney against a hand count and symmetry of roles. */
static void test_mann_whitney_exact(void **state)
{
	/* a = {1, 4}, b = {2, 3}: U_a = 2 (4 beats both); of the 6 arrangements U >= 2 in 4 */
	static const double a[] = {1, 4}, b[] = {2, 3};
	static const double c[] = {1, 2, 3}, d[] = {4, 5, 6, 7};
	struct stats_mw_result r, s;
	UNUSED(state);
	assert_int_equal(stats_mann_whitney(a, 2, b, 2, true, &r), 0);
	assert_true(r.u_a == 2);
	check_close_tol(r.p_exact, 1.0, 1e-15, "mw exact capped", 0);
	assert_int_equal(stats_mann_whitney(c, 3, d, 4, true, &r), 0);
	assert_int_equal(stats_mann_whitney(d, 4, c, 3, true, &s), 0);
	assert_true(r.u_a == 0 && s.u_a == 12);
	/* only 1 of C(7,3) = 35 arrangements is as extreme on each side */
	check_close_tol(r.p_exact, 2.0 / 35, 1e-15, "mw exact", 0);
	check_close_tol(s.p_exact, r.p_exact, 1e-15, "mw exact symmetric", 0);
	check_close_tol(s.p_asymptotic, r.p_asymptotic, 1e-15, "mw asymptotic symmetric", 0);
	/* the exact distribution only on request */
	assert_int_equal(stats_mann_whitney(c, 3, d, 4, false, &r), 0);
	assert_true(isnan(r.p_exact) && r.u_a == 0);
	/* everything tied: no evidence at all */
	assert_int_equal(stats_mann_whitney(a, 1, a, 1, true, &r), 0);
	assert_true(r.p_asymptotic == 1 && r.ties && isnan(r.p_exact));
}

static void test_ranks_and_percentiles(void **state)
{
	static const double x[] = {3, 1, 4, 1, 5, 9, 2, 6};
	static const double want[] = {4, 1.5, 5, 1.5, 6, 8, 3, 7};
	static const double q[] = {0, 100, 50};
	double ranks[8], out[3];
	size_t i;
	UNUSED(state);
	assert_int_equal(stats_rank_average(x, 8, ranks), 0);
	for (i = 0; i < 8; i++)
		assert_true(ranks[i] == want[i]);
	assert_int_equal(stats_percentiles(x, 8, q, 3, out), 0);
	assert_true(out[0] == 1 && out[1] == 9 && out[2] == 3.5);
	/* the control-chart example of METHODS.md section 4: 3..13, 10th/50th/90th */
	{
		static const double base[] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
		check_close_tol(stats_percentile(base, 11, 10), 4, 1e-15, "LCL", 0);
		check_close_tol(stats_percentile(base, 11, 50), 8, 1e-15, "CL", 0);
		check_close_tol(stats_percentile(base, 11, 90), 12, 1e-15, "UCL", 0);
	}
	assert_true(isnan(stats_mean(x, 0)));
	assert_true(isnan(stats_variance(x, 1)));
	check_close_tol(stats_variance(x, 8), 52.875 / 7, 1e-15, "variance", 0);
}

/* Zero variance and small samples are reported, not crashed on. */
static void test_invalid_input(void **state)
{
	static const double one[] = {1}, two[] = {1, 2}, flat[] = {5, 5, 5, 5};
	static const double nan2[] = {1, NAN}, neg[] = {1, -2};
	struct stats_welch_result w;
	struct stats_welch_log_result wl;
	struct stats_linreg lr;
	double v, p, q50 = 50, out;
	UNUSED(state);
	assert_int_equal(stats_welch(one, 1, two, 2, 0.05, &w), -1);
	assert_int_equal(stats_welch(two, 2, nan2, 2, 0.05, &w), -1);
	assert_int_equal(stats_welch(two, 2, two, 2, 1.5, &w), -1);
	assert_int_equal(stats_welch_log(two, 2, neg, 2, 0.05, &wl), -1);
	assert_int_equal(stats_tost(two, 2, two, 2, 1, -1, &p), -1);
	assert_int_equal(stats_tost_log(two, 2, two, 2, 0.9, &p), -1);
	assert_int_equal(stats_shapiro_wilk(two, 2, &v, &p), -1);
	assert_int_equal(stats_gaussian_kde(flat, 4, STATS_BW_SCOTT, two, 2, &v), -1);
	assert_int_equal(stats_linear_regression(flat, two, 2, &lr), -1);
	assert_int_equal(stats_spearman(two, two, 2, &v, &p), -1);
	assert_int_equal(stats_benjamini_hochberg(neg, 2, &v), -1);
	assert_int_equal(stats_percentiles(one, 0, &q50, 1, &out), -1);
	assert_int_equal(stats_rank_average(nan2, 2, &out), -1);
	assert_true(isnan(stats_percentile(nan2, 2, 50)));

	/* both sides constant: t = +-inf, no df, no p; the interval collapses */
	assert_int_equal(stats_welch(flat, 4, flat, 4, 0.05, &w), 0);
	assert_true(isnan(w.p) && isnan(w.df) && w.ci_lo == 0 && w.ci_hi == 0);
	assert_int_equal(stats_tost(flat, 4, flat, 4, -0.1, 0.1, &p), 0);
	assert_true(p == 0);
	/* zero range: W = 1, p = 1, as SciPy */
	assert_int_equal(stats_shapiro_wilk(flat, 4, &v, &p), 0);
	assert_true(v == 1 && p == 1);
	/* a constant variable has no rank correlation */
	assert_int_equal(stats_spearman(flat, flat, 4, &v, &p), 0);
	assert_true(isnan(v) && isnan(p));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reference_values),
	    cmocka_unit_test(test_reference_fully_covered),
	    cmocka_unit_test(test_t_cdf_closed_forms),
	    cmocka_unit_test(test_t_ppf_round_trip),
	    cmocka_unit_test(test_normal),
	    cmocka_unit_test(test_incbeta),
	    cmocka_unit_test(test_mann_whitney_exact),
	    cmocka_unit_test(test_ranks_and_percentiles),
	    cmocka_unit_test(test_invalid_input),
	};
	return cmocka_run_group_tests(tests, load_reference, free_reference);
}
