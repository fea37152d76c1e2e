/*
 * Control charts: a run's load per period (load scaling), the checks of samples that every
 * pass repeats, and the points of one counter's chart. See control_chart.h and
 * docs/control-charts.md.
 */
#include "analysis/control_chart.h"

#include <math.h>
#include <string.h>

#include "analysis/stats.h"
#include "util/common.h"

double cchart_period_of(double t_s, double period_s)
{
	double k = floor(t_s / period_s);
	/* the division may round across a boundary */
	if (k * period_s > t_s)
		k -= 1;
	else if ((k + 1) * period_s <= t_s)
		k += 1;
	return k;
}

int cchart_bad_sample(const struct cchart_series *s, size_t i)
{
	double v = s->value[i], t = s->t_s[i];
	const char *what = !isfinite(v) ? "value" : "timestamp";
	double bad = !isfinite(v) ? v : t;
	error("%s, counter '%s', sample %zu: the %s is %s", s->run ? s->run->name : "unnamed run",
	      s->counter, i + 1, what, isnan(bad) ? "NaN" : "infinite");
	return RP_EINPUT;
}

int cchart_check_series(const struct cchart_series *s)
{
	for (size_t i = 0; i < s->nr; i++)
		if (!isfinite(s->value[i]) || !isfinite(s->t_s[i]))
			return cchart_bad_sample(s, i);
	return RP_OK;
}

int cchart_load_prepare(const struct cchart_series *s, double period_s, struct cchart_load *out)
{
	double tmin = INFINITY, tmax = -INFINITY, span;
	struct cchart_cursor cur = CCHART_CURSOR_INIT;
	size_t *cnt;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!s || !s->nr)
		return RP_OK;
	ret = cchart_check_series(s);
	if (ret)
		return ret;
	for (size_t i = 0; i < s->nr; i++) {
		tmin = fmin(tmin, s->t_s[i]);
		tmax = fmax(tmax, s->t_s[i]);
	}
	out->k0 = cchart_period_of(tmin, period_s);
	span = cchart_period_of(tmax, period_s) - out->k0;
	if (!(span < CCHART_MAX_PERIODS)) {
		error("%s, load counter '%s': its timestamps span %g s, more than %u periods of %g "
		      "s: check the timestamps or use longer periods",
		      s->run ? s->run->name : "unnamed run", s->counter, tmax - tmin,
		      (unsigned)CCHART_MAX_PERIODS, period_s);
		return RP_EINPUT;
	}
	out->np = (size_t)span + 1;
	out->mean = xcalloc(out->np, sizeof(*out->mean));
	cnt = xcalloc(out->np, sizeof(*cnt));
	for (size_t i = 0; i < s->nr; i++) {
		size_t p = cchart_load_at(out, &cur, s->t_s[i], period_s);
		if (p == SIZE_MAX)
			continue; /* rounding at the edges */
		out->mean[p] += s->value[i];
		cnt[p]++;
	}
	for (size_t p = 0; p < out->np; p++)
		out->mean[p] = cnt[p] ? out->mean[p] / (double)cnt[p] : NAN;
	free(cnt);
	return RP_OK;
}

double cchart_slope_p(double r, size_t n)
{
	double df = (double)n - 2, t;

	if (n < 3 || isnan(r))
		return 1;
	if (fabs(r) >= 1)
		return 0;
	t = fabs(r) * sqrt(df / (1 - r * r));
	return 2 * stats_t_sf(t, df);
}

/* Per period of `l`: the scaling factor, NAN where the period stays unscaled. */
void cchart_load_factors(const struct cchart_counter *c, const struct cchart_load *l, double *f)
{
	double ref = c->alpha * c->l_ref + c->beta;
	for (size_t p = 0; p < l->np; p++) {
		double den = c->alpha * l->mean[p] + c->beta;
		f[p] = !isnan(l->mean[p]) && den > 0 && isfinite(ref / den) ? ref / den : NAN;
	}
}

struct tpos {
	double t;
	size_t i;
};

static int cmp_tpos(const void *pa, const void *pb)
{
	const struct tpos *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* Sorts p[0..n) by timestamp, keeping the order of equal ones. */
static void sort_by_time(struct cchart_point *p, size_t n)
{
	struct tpos *k = xmallocarray(n ? n : 1, sizeof(*k));
	struct cchart_point *tmp = xmallocarray(n ? n : 1, sizeof(*tmp));

	for (size_t i = 0; i < n; i++) {
		k[i].t = p[i].t_s;
		k[i].i = i;
	}
	qsort(k, n, sizeof(*k), cmp_tpos);
	for (size_t i = 0; i < n; i++)
		tmp[i] = p[k[i].i];
	memcpy(p, tmp, n * sizeof(*p));
	free(k);
	free(tmp);
}

static void idle_free(const struct cchart_input *in, struct cchart_idle *idle[2])
{
	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; idle[side] && i < in->side[side].nr; i++)
			cchart_idle_release(&idle[side][i]);
		free(idle[side]);
	}
}

/* The idle periods of every run, as the analysis found them (its decision repeated). */
static int points_idle(const struct cchart_input *in, const struct cchart_result *r,
		       struct cchart_idle *idle[2])
{
	/* the analysis' cut, given: nothing is decided again (mode_min_ratio unused) */
	struct cchart_filter f;
	struct cchart_filter_ctx x = {
	    in, 0.05, r->period_s, {NULL, NULL}, NAN, r->scale_baseline, r->filter.cut};
	struct cchart_load *load[2] = {NULL, NULL};
	double *run_idle[2];
	int ret = RP_OK;

	for (int side = 0; side < 2; side++) {
		idle[side] = xcalloc(in->side[side].nr + 1, sizeof(*idle[side]));
		run_idle[side] = xcalloc(in->side[side].nr + 1, sizeof(double));
	}
	memset(&f, 0, sizeof(f));
	if (r->filter.scaling == CCHART_SCALE_DONE) {
		double sum = 0;
		size_t nr = 0;
		for (int side = 0; side < 2 && !ret; side++) {
			load[side] = xcalloc(in->side[side].nr + 1, sizeof(*load[side]));
			for (size_t i = 0; i < in->side[side].nr && !ret; i++)
				ret = cchart_load_prepare(
				    cchart_run_find(in->side[side].runs[i], in->load_counter),
				    r->period_s, &load[side][i]);
		}
		for (size_t i = 0; !ret && i < in->side[0].nr; i++)
			for (size_t p = 0; p < load[0][i].np; p++)
				if (!isnan(load[0][i].mean[p])) {
					sum += load[0][i].mean[p];
					nr++;
				}
		x.load[0] = load[0];
		x.load[1] = load[1];
		x.l_ref = nr ? sum / (double)nr : NAN;
	}
	if (!ret)
		ret = cchart_filter_prepare(&x, &f, idle, run_idle);
	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; load[side] && i < in->side[side].nr; i++)
			free(load[side][i].mean);
		free(load[side]);
		free(run_idle[side]);
	}
	return ret;
}

int cchart_chart_points(const struct cchart_input *in, const struct cchart_result *r, size_t idx,
			struct cchart_points *out)
{
	const struct cchart_counter *c;
	struct cchart_load load;
	struct cchart_idle *idle[2] = {NULL, NULL};
	double *fac = NULL;
	size_t alloc = 0;
	int ret = RP_OK;

	memset(out, 0, sizeof(*out));
	if (idx >= r->nr_counters) {
		error("control chart: no counter number %zu (there are %zu)", idx, r->nr_counters);
		return RP_EINPUT;
	}
	c = &r->counters[idx];
	if (c->status != CCHART_CHARTED) {
		error("counter '%s' was not charted (%s)", c->name, cchart_status_name(c->status));
		return RP_EINPUT;
	}
	if (in->side[0].nr != r->nr_base_runs || in->side[1].nr != r->nr_target_runs) {
		error("control chart: the input has %zu baseline and %zu target runs, the result "
		      "was computed from %zu and %zu",
		      in->side[0].nr, in->side[1].nr, r->nr_base_runs, r->nr_target_runs);
		return RP_EINPUT;
	}
	if (r->filter.active && (ret = points_idle(in, r, idle)))
		goto fail;
	out->lcl = c->lcl;
	out->cl = c->cl;
	out->ucl = c->ucl;
	out->nr_runs = r->nr_target_runs;
	out->run_t0_s = xmallocarray(out->nr_runs, sizeof(*out->run_t0_s));
	for (size_t j = 0; j < out->nr_runs; j++) {
		const struct cchart_run *run = in->side[1].runs[j];
		const struct cchart_series *s = cchart_run_find(run, c->name);
		bool scale = c->scaling == CCHART_SCALE_DONE;
		struct cchart_cursor cur = CCHART_CURSOR_INIT;
		size_t first = out->nr, icur = 0;

		out->run_t0_s[j] = NAN;
		if (!s || !s->nr)
			continue;
		memset(&load, 0, sizeof(load));
		if (scale) {
			ret = cchart_load_prepare(cchart_run_find(run, in->load_counter),
						  r->period_s, &load);
			if (ret)
				goto fail;
			fac = xrealloc(fac, xmallocarray_size(load.np ? load.np : 1, sizeof(*fac)));
			cchart_load_factors(c, &load, fac);
		}
		ALLOC_GROW(out->points, out->nr + s->nr, alloc);
		for (size_t i = 0; i < s->nr; i++) {
			struct cchart_point *pt = &out->points[out->nr++];
			double v = s->value[i];
			if (!isfinite(v) || !isfinite(s->t_s[i])) {
				free(load.mean);
				ret = cchart_bad_sample(s, i);
				goto fail;
			}
			if (scale) {
				size_t p = cchart_load_at(&load, &cur, s->t_s[i], r->period_s);
				if (p != SIZE_MAX && !isnan(fac[p]))
					v *= fac[p];
			}
			pt->t_s = s->t_s[i];
			pt->value = v;
			pt->run = (uint32_t)j;
			pt->kind = idle[1] && cchart_idle_at(&idle[1][j], &icur, s->t_s[i])
				       ? CCHART_POINT_DROPPED
				   : v < c->lcl || v > c->ucl ? CCHART_POINT_VIOLATION
							      : CCHART_POINT_IN;
			if (isnan(out->run_t0_s[j]) || s->t_s[i] < out->run_t0_s[j])
				out->run_t0_s[j] = s->t_s[i];
		}
		free(load.mean);
		if (s->unordered)
			sort_by_time(out->points + first, out->nr - first);
	}
	free(fac);
	idle_free(in, idle);
	return RP_OK;
fail:
	free(fac);
	idle_free(in, idle);
	cchart_points_release(out);
	return ret;
}
