/*
 * Control charts: the bimodal filter (METHODS.md section 4, the paper's section 4.2, and the
 * decision that replaced its per-counter rule). The CPU utilisation of every run (the sum of
 * the CPU counters at their shared timestamps); the decision on the baseline's pooled CPU
 * samples: Shapiro-Wilk on a strided subsample; when it rejects, the Gaussian KDE of a
 * smaller one; with two or more modes, the cut is the lowest grid point between the two
 * highest, if it is a real valley. The CPU samples below the cut make the idle periods of
 * their run, which the analysis drops from every counter. See docs/control-charts.md.
 */
#include "analysis/control_chart.h"

#include <math.h>
#include <string.h>

#include "analysis/stats.h"
#include "util/common.h"

/*
 * Shapiro-Wilk on at most this many baseline samples, at even strides (stats_shapiro_wilk
 * takes up to 5000; its sort of 5000 values would cost 0.5 ms per counter, and 2000 already
 * reject any mixture worth filtering).
 */
#define SW_MAX 2000u
#define SW_ALPHA 0.05
/* The KDE of the bimodal filter: points of the subsample, and points of the grid. */
#define KDE_POINTS 512u
#define KDE_GRID 128u
/*
 * The two highest modes must be separated by a valley at most this share of the lower
 * one: a flat-topped distribution (a uniform load times a slope, plus noise) has two
 * shoulders with a shallow dip between them, which is not two kinds of load.
 */
#define VALLEY_MAX 0.5

/* m values of x[0..n) at even strides (n >= m). */
static void stride_sample(const double *x, size_t n, double *out, size_t m)
{
	for (size_t i = 0; i < m; i++)
		out[i] = x[(size_t)((unsigned long long)i * n / m)];
}

void cchart_filter_decide(const double *vals, size_t n, double mode_min_ratio,
			  struct cchart_filter *c)
{
	size_t m, mk, a = SIZE_MAX, b = SIZE_MAX, v;
	double sub[SW_MAX], grid[KDE_GRID], dens[KDE_GRID], sw, p, lo, hi, h, sd, top = 0;

	if (n < 3)
		return;
	m = n < SW_MAX ? n : SW_MAX;
	stride_sample(vals, n, sub, m);
	if (stats_shapiro_wilk(sub, m, &sw, &p) < 0)
		return;
	c->sw_p = p;
	if (!(p < SW_ALPHA))
		return;
	mk = n < KDE_POINTS ? n : KDE_POINTS;
	stride_sample(vals, n, sub, mk);
	sd = stats_sd(sub, mk);
	if (!(sd > 0))
		return;
	lo = hi = sub[0];
	for (size_t i = 1; i < mk; i++) {
		lo = fmin(lo, sub[i]);
		hi = fmax(hi, sub[i]);
	}
	/* the kernel's sd; 3 of them past the extremes so that a mode at an end is a peak */
	h = sd * stats_kde_factor(mk, STATS_BW_SCOTT);
	lo -= 3 * h;
	hi += 3 * h;
	for (size_t g = 0; g < KDE_GRID; g++)
		grid[g] = lo + (hi - lo) * (double)g / (double)(KDE_GRID - 1);
	if (stats_gaussian_kde(sub, mk, STATS_BW_SCOTT, grid, KDE_GRID, dens) < 0)
		return;
	for (size_t g = 0; g < KDE_GRID; g++)
		top = fmax(top, dens[g]);
	for (size_t g = 1; g + 1 < KDE_GRID; g++) {
		if (!(dens[g] > dens[g - 1] && dens[g] >= dens[g + 1]))
			continue;
		if (dens[g] < mode_min_ratio * top)
			continue;
		c->nr_modes++;
		if (a == SIZE_MAX || dens[g] > dens[a]) {
			b = a;
			a = g;
		} else if (b == SIZE_MAX || dens[g] > dens[b]) {
			b = g;
		}
	}
	if (c->nr_modes < 2)
		return;
	if (a > b) {
		size_t t = a;
		a = b;
		b = t;
	}
	v = a;
	for (size_t g = a; g <= b; g++)
		if (dens[g] < dens[v])
			v = g;
	if (dens[v] > VALLEY_MAX * fmin(dens[a], dens[b]))
		return;
	c->active = true;
	c->cut = grid[v];
}

/* ---- the CPU utilisation of a run ---- */

struct cpu_sample {
	double t, v;
	uint32_t which; /* index of the counter among the run's CPU counters */
};

static int cmp_cpu_sample(const void *pa, const void *pb)
{
	const struct cpu_sample *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->which > b->which) - (a->which < b->which);
}

int cchart_cpu_series(const struct cchart_input *in, const struct cchart_run *run, double **t,
		      double **v, size_t *n)
{
	size_t nr_names, k = 0, total = 0, m = 0, out = 0;
	const char *const *names = cchart_input_cpu(in, &nr_names);
	const struct cchart_series *s[16];
	struct cpu_sample *all;

	*t = *v = NULL;
	*n = 0;
	for (size_t i = 0; i < nr_names && k < ARRAY_SIZE(s); i++) {
		const struct cchart_series *cs = cchart_run_find(run, names[i]);
		int ret;
		if (!cs || !cs->nr)
			continue;
		if ((ret = cchart_check_series(cs)))
			return ret;
		s[k++] = cs;
		total += cs->nr;
	}
	if (!k)
		return RP_OK;
	all = xmallocarray(total, sizeof(*all));
	for (size_t j = 0; j < k; j++)
		for (size_t i = 0; i < s[j]->nr; i++)
			all[m++] = (struct cpu_sample){s[j]->t_s[i], s[j]->value[i], (uint32_t)j};
	qsort(all, m, sizeof(*all), cmp_cpu_sample);
	*t = xmallocarray(m, sizeof(**t));
	*v = xmallocarray(m, sizeof(**v));
	for (size_t i = 0; i < m;) {
		/* one timestamp: the mean of each counter's samples there, summed */
		size_t end = i, seen = 0;
		double sum = 0;
		while (end < m && all[end].t == all[i].t)
			end++;
		for (size_t a = i; a < end;) {
			size_t b = a;
			double part = 0;
			while (b < end && all[b].which == all[a].which)
				part += all[b++].v;
			sum += part / (double)(b - a);
			seen++;
			a = b;
		}
		if (seen == k) {
			(*t)[out] = all[i].t;
			(*v)[out] = sum;
			out++;
		}
		i = end;
	}
	free(all);
	*n = out;
	if (!out) {
		free(*t);
		free(*v);
		*t = *v = NULL;
	}
	return RP_OK;
}

/* ---- idle periods ---- */

void cchart_idle_release(struct cchart_idle *d)
{
	if (!d)
		return;
	free(d->lo);
	free(d->hi);
	memset(d, 0, sizeof(*d));
}

void cchart_idle_build(const double *t, const double *v, size_t n, double cut,
		       struct cchart_idle *out)
{
	size_t alloc = 0;

	memset(out, 0, sizeof(*out));
	out->nr_cpu = n;
	for (size_t i = 0; i < n; i++) {
		/*
		 * A rate sample covers the interval since the previous one. Samples of other
		 * counters before the first or after the last take their state.
		 */
		double lo = i ? t[i - 1] : -INFINITY, hi = i + 1 < n ? t[i] : INFINITY;
		if (!(v[i] < cut))
			continue;
		out->nr_below++;
		if (out->nr && lo <= out->hi[out->nr - 1]) {
			out->hi[out->nr - 1] = hi; /* adjacent: one period */
			continue;
		}
		if (out->nr == alloc) {
			ALLOC_GROW(out->lo, out->nr + 1, alloc);
			out->hi = xrealloc(out->hi, xmallocarray_size(alloc, sizeof(*out->hi)));
		}
		out->lo[out->nr] = lo;
		out->hi[out->nr] = hi;
		out->nr++;
	}
}

size_t cchart_idle_search(const struct cchart_idle *d, double t)
{
	size_t lo = 0, hi = d->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->hi[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The CPU utilisation's load scaling, as a counter's (control_chart_analyze.c): the least
 * squares fit of its per-period means on the load's over the baseline, then each sample
 * times its period's factor, on the target, and on the baseline with scale_baseline.
 */
static void scale_cpu(const struct cchart_filter_ctx *x, struct cchart_filter *f, double **t[2],
		      double **v[2], size_t *n[2])
{
	const struct cchart_runs *base = &x->in->side[0];
	size_t nfit = 0, cap = 0;
	double *fx = NULL, *fy = NULL, *fac = NULL;
	struct stats_linreg fit;
	struct cchart_counter c;
	bool varies = false;

	f->scaling = CCHART_SCALE_NO_FIT;
	for (size_t r = 0; r < base->nr; r++) {
		const struct cchart_load *l = &x->load[0][r];
		struct cchart_cursor cur = CCHART_CURSOR_INIT;
		double *sum = xcalloc(l->np + 1, sizeof(*sum));
		size_t *cnt = xcalloc(l->np + 1, sizeof(*cnt));
		for (size_t i = 0; i < n[0][r]; i++) {
			size_t p = cchart_load_at(l, &cur, t[0][r][i], x->period_s);
			if (p == SIZE_MAX)
				continue;
			sum[p] += v[0][r][i];
			cnt[p]++;
		}
		for (size_t p = 0; p < l->np; p++) {
			if (!cnt[p] || isnan(l->mean[p]))
				continue;
			if (nfit == cap) {
				ALLOC_GROW(fx, nfit + 1, cap);
				fy = xrealloc(fy, xmallocarray_size(cap, sizeof(*fy)));
			}
			fx[nfit] = l->mean[p];
			fy[nfit] = sum[p] / (double)cnt[p];
			varies |= fx[nfit] != fx[0];
			nfit++;
		}
		free(sum);
		free(cnt);
	}
	if (nfit < 2 || !varies || stats_linear_regression(fx, fy, nfit, &fit) < 0 ||
	    !isfinite(fit.slope) || !isfinite(fit.intercept))
		goto out;
	f->alpha = fit.slope;
	f->beta = fit.intercept;
	if (!(cchart_slope_p(fit.r, nfit) < CCHART_SLOPE_ALPHA)) {
		f->scaling = CCHART_SCALE_FLAT;
		goto out;
	}
	if (!(f->alpha * x->l_ref + f->beta > 0)) {
		f->scaling = CCHART_SCALE_BAD_REF;
		goto out;
	}
	f->scaling = CCHART_SCALE_DONE;
	memset(&c, 0, sizeof(c));
	c.alpha = f->alpha;
	c.beta = f->beta;
	c.l_ref = x->l_ref;
	for (int side = x->scale_baseline ? 0 : 1; side < 2; side++) {
		for (size_t r = 0; r < x->in->side[side].nr; r++) {
			const struct cchart_load *l = &x->load[side][r];
			struct cchart_cursor cur = CCHART_CURSOR_INIT;
			fac = xrealloc(fac, xmallocarray_size(l->np + 1, sizeof(*fac)));
			cchart_load_factors(&c, l, fac);
			for (size_t i = 0; i < n[side][r]; i++) {
				size_t p = cchart_load_at(l, &cur, t[side][r][i], x->period_s);
				if (p != SIZE_MAX && !isnan(fac[p]))
					v[side][r][i] *= fac[p];
			}
		}
	}
out:
	free(fx);
	free(fy);
	free(fac);
}

/* Refuses a cut below which some baseline run lies throughout (cchart_filter.whole_run). */
static void refuse_whole_runs(struct cchart_filter *f, double **v, const size_t *n, size_t nr)
{
	for (size_t r = 0; f->active && r < nr; r++) {
		size_t below = 0;
		for (size_t i = 0; i < n[r]; i++)
			below += v[r][i] < f->cut;
		if (!n[r] || below < n[r])
			continue;
		f->active = false;
		f->whole_run = r;
		f->refused_cut = f->cut;
		f->cut = NAN;
	}
}

int cchart_filter_prepare(const struct cchart_filter_ctx *x, struct cchart_filter *f,
			  struct cchart_idle *idle[2], double *run_idle[2])
{
	const struct cchart_input *in = x->in;
	double **t[2], **v[2], *pool;
	size_t *n[2], total = 0;
	int ret = RP_OK;

	f->scaling = CCHART_SCALE_OFF;
	f->alpha = f->beta = f->refused_cut = NAN;
	f->whole_run = f->target_whole = SIZE_MAX;
	for (int side = 0; side < 2; side++) {
		const struct cchart_runs *rs = &in->side[side];
		t[side] = xcalloc(rs->nr + 1, sizeof(*t[side]));
		v[side] = xcalloc(rs->nr + 1, sizeof(*v[side]));
		n[side] = xcalloc(rs->nr + 1, sizeof(*n[side]));
		for (size_t i = 0; i < rs->nr; i++) {
			if (!ret)
				ret = cchart_cpu_series(in, rs->runs[i], &t[side][i], &v[side][i],
							&n[side][i]);
			run_idle[side][i] = n[side][i] ? 0 : NAN;
			f->nr_cpu[side] += n[side][i];
		}
	}
	if (ret || !f->nr_cpu[0])
		goto out;
	if (x->load[0] && !isnan(x->l_ref))
		scale_cpu(x, f, t, v, n);
	f->nr_base_cpu = f->nr_cpu[0];
	if (isnan(x->cut)) {
		pool = xmallocarray(f->nr_cpu[0], sizeof(*pool));
		for (size_t i = 0; i < in->side[0].nr; i++) {
			memcpy(pool + total, v[0][i], n[0][i] * sizeof(*pool));
			total += n[0][i];
		}
		cchart_filter_decide(pool, total, x->mode_min_ratio, f);
		free(pool);
		refuse_whole_runs(f, v[0], n[0], in->side[0].nr);
	} else {
		f->active = true;
		f->cut = x->cut;
	}
	if (!f->active)
		goto out;
	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; i < in->side[side].nr; i++) {
			struct cchart_idle *d = &idle[side][i];
			cchart_idle_build(t[side][i], v[side][i], n[side][i], f->cut, d);
			if (side == CCHART_TARGET && d->nr_cpu && d->nr_below == d->nr_cpu) {
				/* below throughout: not idle (cchart_filter.nr_target_whole) */
				cchart_idle_release(d);
				if (!f->nr_target_whole++)
					f->target_whole = i;
				continue;
			}
			f->nr_idle[side] += d->nr_below;
			if (d->nr_cpu)
				run_idle[side][i] = (double)d->nr_below / (double)d->nr_cpu;
		}
	}
out:
	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; i < in->side[side].nr; i++) {
			free(t[side][i]);
			free(v[side][i]);
		}
		free(t[side]);
		free(v[side]);
		free(n[side]);
	}
	return ret;
}

int cchart_filter_setup(const struct cchart_input *in, const struct cchart_opts *opts,
			struct cchart_load *const *load, double l_ref, struct cchart_result *r,
			struct cchart_idle *idle[2])
{
	struct cchart_filter *f = &r->filter;
	struct cchart_filter_ctx x;
	struct strbuf sb = STRBUF_INIT;
	const char *const *cpu;
	size_t nr_cpu;
	double *run_idle[2];
	int ret;

	idle[0] = xcalloc(in->side[0].nr, sizeof(struct cchart_idle));
	idle[1] = xcalloc(in->side[1].nr, sizeof(struct cchart_idle));
	r->idle_block = xmallocarray(in->side[0].nr + in->side[1].nr, sizeof(double));
	run_idle[0] = r->idle_block;
	run_idle[1] = r->idle_block + in->side[0].nr;
	for (size_t i = 0; i < in->side[0].nr + in->side[1].nr; i++)
		r->idle_block[i] = NAN;
	f->run_idle[0] = run_idle[0];
	f->run_idle[1] = run_idle[1];
	f->sw_p = f->cut = NAN;
	cpu = cchart_input_cpu(in, &nr_cpu);
	for (size_t i = 0; i < nr_cpu; i++)
		strbuf_addf(&sb, "%s%s", i ? " + " : "", cpu[i]);
	r->cpu_name = strbuf_detach(&sb);
	f->cpu = r->cpu_name;
	f->on = opts->bimodal_filter;
	f->scaling = CCHART_SCALE_OFF;
	f->alpha = f->beta = f->refused_cut = NAN;
	f->whole_run = f->target_whole = SIZE_MAX;
	if (!f->on)
		return RP_OK;
	x.in = in;
	x.mode_min_ratio = opts->mode_min_ratio;
	x.period_s = opts->period_s;
	x.load[0] = load ? load[0] : NULL;
	x.load[1] = load ? load[1] : NULL;
	x.l_ref = l_ref;
	x.scale_baseline = opts->scale_baseline;
	x.cut = NAN;
	ret = cchart_filter_prepare(&x, f, idle, run_idle);
	if (!ret && f->whole_run != SIZE_MAX) {
		r->whole_name = xstrdup(in->side[0].runs[f->whole_run]->name);
		f->whole_run_name = r->whole_name;
	}
	if (!ret && f->target_whole != SIZE_MAX) {
		r->target_whole_name = xstrdup(in->side[1].runs[f->target_whole]->name);
		f->target_whole_name = r->target_whole_name;
	}
	return ret;
}
