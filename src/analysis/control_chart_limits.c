/*
 * Control charts: the control limits of the pooled baseline and of the pool minus each
 * run (METHODS.md section 4). Percentiles as numpy.percentile's 'linear' (the definition of
 * stats_percentiles), from the order statistics that cchart_select() finds; mean -/+ 3 sd
 * from per-run moments. See docs/control-charts.md.
 */
#include "analysis/control_chart.h"

#include <math.h>

#include "analysis/stats.h"
#include "util/common.h"

/* numpy's _lerp (as stats_percentiles): from the nearer end, so that t = 1 gives b. */
static double lerp(double a, double b, double t)
{
	double diff = b - a;
	return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/* The two ranks and the fraction of numpy's 'linear' percentile q of m >= 1 values. */
static void percentile_ranks(size_t m, double q, size_t *lo, size_t *hi, double *frac)
{
	double index = (double)(m - 1) * (q / 100);
	double below = floor(index);
	*lo = (size_t)below;
	*hi = *lo + 1 < m ? *lo + 1 : m - 1;
	*frac = index - below;
}

static const double limit_q[][2] = {
    [CCHART_P5_95] = {5, 95},
    [CCHART_P1_99] = {1, 99},
    [CCHART_P10_90] = {10, 90},
};

static size_t run_size(const struct cchart_pool *pool, size_t r)
{
	return pool->off[r + 1] - pool->off[r];
}

/* The queries' order statistics of the pool (its runs are the queries' runs). */
static void select_pool(const struct cchart_pool *pool, struct cchart_rank_query **qp, size_t nq)
{
	struct cchart_seg *segs = xmallocarray(pool->nc, sizeof(*segs));
	for (size_t r = 0; r < pool->nc; r++) {
		segs[r].run = (uint32_t)r;
		segs[r].end = pool->off[r + 1];
	}
	cchart_select(pool->vals, segs, pool->nc, pool->nc, pool->vmin, pool->vmax, qp, nq);
	free(segs);
}

/* Percentile limits of the pool and of the pool minus each run, by selection. */
static void limits_percentile(const struct cchart_pool *pool, enum cchart_limits limits,
			      struct cchart_counter *c, double *lcl_r, double *ucl_r)
{
	size_t n = pool->off[pool->nc], nq = 0;
	bool loo = pool->nc >= 2;
	size_t max_q = 6 + (loo ? 4 * pool->nc : 0);
	struct cchart_rank_query *q = xmallocarray(max_q, sizeof(*q));
	struct cchart_rank_query **qp = xmallocarray(max_q, sizeof(*qp));
	const double *lq = limit_q[limits];
	const double pct[3] = {lq[0], 50, lq[1]};
	double frac[3], lim[3];
	size_t first_loo;

	for (int k = 0; k < 3; k++) {
		size_t lo, hi;
		percentile_ranks(n, pct[k], &lo, &hi, &frac[k]);
		q[nq++] = (struct cchart_rank_query){CCHART_NO_RUN, lo, 0, 0};
		q[nq++] = (struct cchart_rank_query){CCHART_NO_RUN, hi, 0, 0};
	}
	first_loo = nq;
	for (size_t r = 0; loo && r < pool->nc; r++) {
		size_t m = n - run_size(pool, r);
		for (int k = 0; k < 3; k += 2) {
			size_t lo, hi;
			double f;
			percentile_ranks(m, pct[k], &lo, &hi, &f);
			q[nq++] = (struct cchart_rank_query){(uint32_t)r, lo, 0, 0};
			q[nq++] = (struct cchart_rank_query){(uint32_t)r, hi, 0, 0};
		}
	}
	for (size_t i = 0; i < nq; i++)
		qp[i] = &q[i];
	select_pool(pool, qp, nq);
	for (int k = 0; k < 3; k++)
		lim[k] = lerp(q[2 * k].answer, q[2 * k + 1].answer, frac[k]);
	c->lcl = lim[0];
	c->cl = lim[1];
	c->ucl = lim[2];
	for (size_t r = 0; loo && r < pool->nc; r++) {
		size_t m = n - run_size(pool, r), lo, hi;
		const struct cchart_rank_query *rq = &q[first_loo + 4 * r];
		double f;
		percentile_ranks(m, pct[0], &lo, &hi, &f);
		lcl_r[r] = lerp(rq[0].answer, rq[1].answer, f);
		percentile_ranks(m, pct[2], &lo, &hi, &f);
		ucl_r[r] = lerp(rq[2].answer, rq[3].answer, f);
	}
	free(q);
	free(qp);
}

/* Mean -/+ 3 sd of the pool and of the pool minus each run (sd 0 for a single sample). */
static void limits_3sd(const struct cchart_pool *pool, struct cchart_counter *c, double *lcl_r,
		       double *ucl_r)
{
	size_t n = pool->off[pool->nc], lo, hi;
	double mean = stats_mean(pool->vals, n), sd = n >= 2 ? stats_sd(pool->vals, n) : 0, frac;
	double s1 = 0, s2 = 0, m2 = 0;
	double *rmean, *rm2;
	struct cchart_rank_query q[2], *qp[2] = {&q[0], &q[1]};

	percentile_ranks(n, 50, &lo, &hi, &frac);
	q[0] = (struct cchart_rank_query){CCHART_NO_RUN, lo, 0, 0};
	q[1] = (struct cchart_rank_query){CCHART_NO_RUN, hi, 0, 0};
	select_pool(pool, qp, 2);
	c->cl = lerp(q[0].answer, q[1].answer, frac);
	c->lcl = mean - 3 * sd;
	c->ucl = mean + 3 * sd;
	if (pool->nc < 2)
		return;
	/* per-run moments, combined without each run (deviations from the pooled mean) */
	rmean = xmallocarray(pool->nc, sizeof(*rmean));
	rm2 = xmallocarray(pool->nc, sizeof(*rm2));
	for (size_t r = 0; r < pool->nc; r++) {
		size_t nr = run_size(pool, r);
		const double *v = pool->vals + pool->off[r];
		rmean[r] = stats_mean(v, nr) - mean;
		rm2[r] = nr >= 2 ? stats_variance(v, nr) * (double)(nr - 1) : 0;
		s1 += (double)nr * rmean[r];
		s2 += (double)nr * rmean[r] * rmean[r];
		m2 += rm2[r];
	}
	for (size_t r = 0; r < pool->nc; r++) {
		double nr = (double)run_size(pool, r), no = (double)n - nr;
		double d = (s1 - nr * rmean[r]) / no;
		double ss = m2 - rm2[r] + (s2 - nr * rmean[r] * rmean[r]) - no * d * d;
		double sdo = no >= 2 && ss > 0 ? sqrt(ss / (no - 1)) : 0;
		lcl_r[r] = mean + d - 3 * sdo;
		ucl_r[r] = mean + d + 3 * sdo;
	}
	free(rmean);
	free(rm2);
}

void cchart_limits(const struct cchart_pool *pool, enum cchart_limits limits,
		   struct cchart_counter *c, double *lcl_r, double *ucl_r)
{
	if (limits == CCHART_MEAN_3SD)
		limits_3sd(pool, c, lcl_r, ucl_r);
	else
		limits_percentile(pool, limits, c, lcl_r, ucl_r);
}
