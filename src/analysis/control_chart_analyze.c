/*
 * Control charts (METHODS.md section 4): the analysis of one input. See control_chart.h
 * and docs/control-charts.md.
 *
 * Before the counters: each run's load per period; the bimodal filter decides on the
 * baseline's (load-scaled) CPU utilisation and finds every run's idle periods
 * (control_chart_filter.c). Per counter: the baseline samples outside the idle periods are
 * gathered into one array, run after run (a run is a contiguous slice), with the
 * per-period means of all its samples that the load fit needs (Scale comes before Filter);
 * they are scaled to the reference load; the limits of the pool
 * and those of "the pool minus one run" for every run are order statistics of that array,
 * all found by one cchart_select() (a few linear passes, where sorting 100,000 samples per
 * counter would blow the time budget); each baseline run is scored against the others'
 * limits; then one pass over the target filters, scales and scores it.
 *
 * Counters are independent: workers (threads) take them in index order. A worker that
 * meets bad input records it instead of printing it; after the join the analysis reports
 * the bad input of the lowest counter index, which is what a single thread would have
 * stopped at, so the message does not depend on the number of threads.
 */
#include "analysis/control_chart.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "util/common.h"

#define POOL_MAX (UINT32_MAX - 1u)
#define THREADS_MAX 8u

/* Both finite (not NaN, not infinite), without a branch: x - x is 0 only then. */
static inline bool finite2(double a, double b)
{
	return (a - a == 0) & (b - b == 0);
}

/* ---- state ---- */

/* What every worker reads; only `next` and `failed` change while they run. */
struct analysis {
	const struct cchart_input *in;
	struct cchart_opts opts;
	size_t nr_base, nr_target;
	bool scaling;		     /* a load counter, and scaling asked for */
	double l_ref;		     /* NAN: no baseline load, nothing can be fitted */
	struct cchart_idle *idle[2]; /* per run of each side; empty unless the filter is on */
	struct cchart_load *load[2]; /* per run of each side */
	struct cchart_result *out;
	char **names; /* per counter index (the result's, before ranking) */
	size_t per;   /* doubles of the result's block per counter */
	atomic_size_t next;
	atomic_bool failed;
};

enum fault_kind {
	FAULT_NONE = 0,
	FAULT_SAMPLE, /* a sample that is not finite */
	FAULT_POOL,   /* more than POOL_MAX baseline samples */
};

/* One worker's scratch, and the first counter it could not chart. */
struct worker {
	struct analysis *a;
	pthread_t thread;
	/* per counter */
	struct cchart_series **bs, **ts; /* its series per baseline / target run, or NULL */
	double *vals;			 /* the pooled baseline, run after run */
	double vmin, vmax;		 /* its extremes */
	size_t cap;
	size_t *off;	/* compact run r: vals[off[r] .. off[r + 1]) */
	uint32_t *orig; /* compact run -> baseline run */
	size_t nc;	/* compact runs */
	double *fx, *fy, *psum, *pfac;
	size_t *pcnt;
	size_t nfit, fcap, pcap;
	/* fault */
	enum fault_kind fault;
	size_t fault_idx;
	const struct cchart_series *fault_s;
	size_t fault_i, fault_total;
};

static void worker_release(struct worker *w)
{
	free(w->bs);
	free(w->ts);
	free(w->vals);
	free(w->off);
	free(w->orig);
	free(w->fx);
	free(w->fy);
	free(w->psum);
	free(w->pcnt);
	free(w->pfac);
}

/* Records the first sample of s that is not finite; RP_EINPUT. */
static int fault_series(struct worker *w, const struct cchart_series *s)
{
	size_t i = 0;
	while (i + 1 < s->nr && finite2(s->value[i], s->t_s[i]))
		i++;
	w->fault = FAULT_SAMPLE;
	w->fault_s = s;
	w->fault_i = i;
	return RP_EINPUT;
}

static int check_series(struct worker *w, const struct cchart_series *s)
{
	bool ok = true;
	for (size_t i = 0; i < s->nr; i++)
		ok &= finite2(s->value[i], s->t_s[i]);
	return ok ? RP_OK : fault_series(w, s);
}

static int check_opts(const struct cchart_opts *o)
{
	if (!cchart_limits_name(o->limits)) {
		error("control chart: unknown control limits %d", (int)o->limits);
		return RP_EINPUT;
	}
	if (!(isfinite(o->period_s) && o->period_s > 0)) {
		error("control chart: the load-scaling period must be > 0 seconds, not %g",
		      o->period_s);
		return RP_EINPUT;
	}
	if (!(o->mode_min_ratio > 0 && o->mode_min_ratio <= 1)) {
		error("control chart: the minimum mode height must be in (0, 1], not %g",
		      o->mode_min_ratio);
		return RP_EINPUT;
	}
	if (!(o->margin >= 0 && o->margin <= 1)) {
		error("control chart: the margin must be in [0, 1], not %g", o->margin);
		return RP_EINPUT;
	}
	return RP_OK;
}

/*
 * The load of every run, per period, and l_ref: the mean of the baseline's per-period load
 * means (idle periods included: scaling comes before the filter). Without any baseline load
 * sample no counter can be fitted.
 */
static int prepare_load(struct analysis *a)
{
	const char *name = a->in->load_counter;
	double sum = 0;
	size_t nr = 0;

	a->load[0] = xcalloc(a->nr_base, sizeof(struct cchart_load));
	a->load[1] = xcalloc(a->nr_target, sizeof(struct cchart_load));
	a->l_ref = NAN;
	if (!a->scaling)
		return RP_OK;
	for (int side = 0; side < 2; side++) {
		const struct cchart_runs *rs = &a->in->side[side];
		for (size_t i = 0; i < rs->nr; i++) {
			int ret = cchart_load_prepare(cchart_run_find(rs->runs[i], name),
						      a->opts.period_s, &a->load[side][i]);
			if (ret)
				return ret;
		}
	}
	for (size_t i = 0; i < a->nr_base; i++) {
		const struct cchart_load *l = &a->load[0][i];
		for (size_t p = 0; p < l->np; p++) {
			if (isnan(l->mean[p]))
				continue;
			sum += l->mean[p];
			nr++;
		}
	}
	a->l_ref = nr ? sum / (double)nr : NAN;
	return RP_OK;
}

/* The bimodal filter's decision and every run's idle periods, into the result. */
static int prepare_filter(struct analysis *a)
{
	return cchart_filter_setup(a->in, &a->opts, a->scaling ? a->load : NULL, a->l_ref, a->out,
				   a->idle);
}

/* ---- gathering the baseline, and the load fit ---- */

static void grow_periods(struct worker *w, size_t np)
{
	if (np <= w->pcap)
		return;
	w->pcap = alloc_nr(w->pcap, np);
	w->psum = xrealloc(w->psum, xmallocarray_size(w->pcap, sizeof(*w->psum)));
	w->pcnt = xrealloc(w->pcnt, xmallocarray_size(w->pcap, sizeof(*w->pcnt)));
	w->pfac = xrealloc(w->pfac, xmallocarray_size(w->pcap, sizeof(*w->pfac)));
}

/* Copies the samples of s outside the idle periods d into out; returns their number. */
static size_t gather_active(const struct cchart_series *s, const struct cchart_idle *d, double *out,
			    bool *ok)
{
	size_t k = 0, cur = 0;
	bool fine = true;

	for (size_t i = 0; i < s->nr; i++) {
		double v = s->value[i] + 0.0;
		fine &= finite2(v, s->t_s[i]);
		if (!cchart_idle_at(d, &cur, s->t_s[i]))
			out[k++] = v;
	}
	*ok = fine;
	return k;
}

/*
 * Copies one baseline series into vals[n ..], leaving out its samples in the idle periods
 * d, with its per-period means when `l` is given (the fit's pairs, appended to fx / fy).
 * Returns the number copied in *kept, false for a sample that is not finite.
 */
static bool gather_series(struct worker *w, const struct cchart_series *s, size_t n,
			  const struct cchart_load *l, const struct cchart_idle *d, size_t *kept)
{
	const double *val = s->value, *ts = s->t_s;
	double lo = INFINITY, hi = -INFINITY, *out = w->vals + n;
	size_t k = s->nr;
	bool ok = true;

	if (!l && d->nr) {
		k = gather_active(s, d, out, &ok);
		for (size_t i = 0; i < k; i++) {
			lo = out[i] < lo ? out[i] : lo;
			hi = out[i] > hi ? out[i] : hi;
		}
	} else if (!l) {
		/* timestamps unused: not read (twice the memory traffic) */
		for (size_t i = 0; i < s->nr; i++) {
			double v = val[i] + 0.0; /* -0 becomes +0 */
			ok &= v - v == 0;
			out[i] = v;
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	} else {
		struct cchart_cursor cur = CCHART_CURSOR_INIT;
		grow_periods(w, l->np);
		memset(w->psum, 0, l->np * sizeof(*w->psum));
		memset(w->pcnt, 0, l->np * sizeof(*w->pcnt));
		/* sums kept in registers while the period stays the same */
		size_t last = SIZE_MAX, cnt = 0, icur = 0;
		double sum = 0;
		k = 0;
		for (size_t i = 0; i < s->nr; i++) {
			double v = val[i] + 0.0;
			size_t p = cchart_load_at(l, &cur, ts[i], w->a->opts.period_s);
			ok &= finite2(v, ts[i]);
			/* the fit sees every sample: scaling comes before the filter */
			if (!d->nr || !cchart_idle_at(d, &icur, ts[i])) {
				out[k++] = v;
				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
			}
			if (p != last) {
				if (last != SIZE_MAX) {
					w->psum[last] += sum;
					w->pcnt[last] += cnt;
				}
				last = p;
				sum = 0;
				cnt = 0;
			}
			sum += v;
			cnt++;
		}
		if (last != SIZE_MAX) {
			w->psum[last] += sum;
			w->pcnt[last] += cnt;
		}
		for (size_t p = 0; ok && p < l->np; p++) {
			if (!w->pcnt[p] || isnan(l->mean[p]))
				continue;
			w->fx[w->nfit] = l->mean[p];
			w->fy[w->nfit] = w->psum[p] / (double)w->pcnt[p];
			w->nfit++;
		}
	}
	w->vmin = fmin(w->vmin, lo);
	w->vmax = fmax(w->vmax, hi);
	*kept = k;
	return ok;
}

/*
 * Pools the counter's baseline samples outside the idle periods (and the fit's pairs when
 * `fit`). A run left without samples takes no part.
 */
static int gather_base(struct worker *w, struct cchart_counter *c, bool fit)
{
	const struct analysis *a = w->a;
	size_t n = 0, total = 0, periods = 0;

	for (size_t r = 0; r < a->nr_base; r++) {
		total += w->bs[r] ? w->bs[r]->nr : 0;
		periods += w->bs[r] ? a->load[0][r].np : 0;
	}
	if (total > POOL_MAX) {
		w->fault = FAULT_POOL;
		w->fault_total = total;
		return RP_EINPUT;
	}
	if (total > w->cap) {
		w->cap = alloc_nr(w->cap, total);
		w->vals = xrealloc(w->vals, xmallocarray_size(w->cap, sizeof(*w->vals)));
	}
	if (fit && periods > w->fcap) {
		w->fcap = alloc_nr(w->fcap, periods);
		w->fx = xrealloc(w->fx, xmallocarray_size(w->fcap, sizeof(*w->fx)));
		w->fy = xrealloc(w->fy, xmallocarray_size(w->fcap, sizeof(*w->fy)));
	}
	w->nc = 0;
	w->nfit = 0;
	w->vmin = INFINITY;
	w->vmax = -INFINITY;
	for (size_t r = 0; r < a->nr_base; r++) {
		const struct cchart_series *s = w->bs[r];
		const struct cchart_load *l = &a->load[0][r];
		size_t kept;
		if (!s || !s->nr)
			continue;
		if (!gather_series(w, s, n, fit && l->np ? l : NULL, &a->idle[0][r], &kept))
			return fault_series(w, s);
		c->dropped_base += s->nr - kept;
		if (!kept)
			continue; /* every sample of this run was idle */
		w->off[w->nc] = n;
		w->orig[w->nc] = (uint32_t)r;
		n += kept;
		w->nc++;
	}
	w->off[w->nc] = n;
	c->nr_fit_periods = w->nfit;
	return RP_OK;
}

/* Least squares of the counter's per-period means on the load's, over the baseline. */
static void scale_fit(struct worker *w, struct cchart_counter *c)
{
	struct stats_linreg fit;
	bool varies = false;

	c->scaling = CCHART_SCALE_NO_FIT;
	for (size_t i = 0; i < w->nfit; i++) {
		if (!isfinite(w->fx[i]) || !isfinite(w->fy[i]))
			return; /* sums past DBL_MAX */
		varies |= w->fx[i] != w->fx[0];
	}
	if (w->nfit < 2 || !varies || stats_linear_regression(w->fx, w->fy, w->nfit, &fit) < 0)
		return;
	c->alpha = fit.slope;
	c->beta = fit.intercept;
	c->fit_r = fit.r;
	c->fit_p = cchart_slope_p(fit.r, w->nfit);
	if (!(c->fit_p < CCHART_SLOPE_ALPHA))
		c->scaling = CCHART_SCALE_FLAT;
	else if (c->alpha * c->l_ref + c->beta > 0)
		c->scaling = CCHART_SCALE_DONE;
	else
		c->scaling = CCHART_SCALE_BAD_REF;
}

/*
 * Scales the pooled baseline to l_ref as the target is scaled (opts.scale_baseline). The
 * pool holds each run's samples outside its idle periods, in order: the same walk over
 * the series finds their timestamps. A sample whose period has no load stays as it is.
 */
static void scale_base(struct worker *w, struct cchart_counter *c)
{
	const struct analysis *a = w->a;

	w->vmin = INFINITY;
	w->vmax = -INFINITY;
	for (size_t r = 0; r < w->nc; r++) {
		const struct cchart_series *s = w->bs[w->orig[r]];
		const struct cchart_load *l = &a->load[0][w->orig[r]];
		const struct cchart_idle *d = &a->idle[0][w->orig[r]];
		struct cchart_cursor cur = CCHART_CURSOR_INIT;
		double *v = w->vals + w->off[r];
		size_t k = 0, icur = 0;

		grow_periods(w, l->np);
		cchart_load_factors(c, l, w->pfac);
		for (size_t i = 0; i < s->nr; i++) {
			size_t p;
			double f;
			if (d->nr && cchart_idle_at(d, &icur, s->t_s[i]))
				continue;
			p = cchart_load_at(l, &cur, s->t_s[i], a->opts.period_s);
			f = p != SIZE_MAX ? w->pfac[p] : NAN;
			if (!isnan(f))
				v[k] = v[k] * f + 0.0;
			w->vmin = v[k] < w->vmin ? v[k] : w->vmin;
			w->vmax = v[k] > w->vmax ? v[k] : w->vmax;
			k++;
		}
	}
}

static size_t run_size(const struct worker *w, size_t r)
{
	return w->off[r + 1] - w->off[r];
}

/* Violations of compact run r against [lcl, ucl]. */
static size_t run_violations(const struct worker *w, size_t r, double lcl, double ucl)
{
	size_t v = 0;
	for (size_t i = w->off[r]; i < w->off[r + 1]; i++)
		v += (w->vals[i] < lcl) | (w->vals[i] > ucl);
	return v;
}

/* The limits, and the threshold from each baseline run scored against the others. */
static void limits_and_threshold(const struct worker *w, struct cchart_counter *c,
				 double *loo_ratio, double *loo_lcl, double *loo_ucl)
{
	double *lcl_r = xmallocarray(w->nc, sizeof(*lcl_r));
	double *ucl_r = xmallocarray(w->nc, sizeof(*ucl_r));

	const struct cchart_pool pool = {w->vals, w->off, w->nc, w->vmin, w->vmax};

	cchart_limits(&pool, w->a->opts.limits, c, lcl_r, ucl_r);
	if (w->nc >= 2) {
		c->threshold = 0;
		for (size_t r = 0; r < w->nc; r++) {
			size_t b = w->orig[r];
			double v = (double)run_violations(w, r, lcl_r[r], ucl_r[r]) /
				   (double)run_size(w, r);
			loo_ratio[b] = v;
			loo_lcl[b] = lcl_r[r];
			loo_ucl[b] = ucl_r[r];
			c->threshold = fmax(c->threshold, v);
		}
	} else {
		c->threshold_fallback = true;
		c->threshold = (double)run_violations(w, 0, c->lcl, c->ucl) / (double)w->off[w->nc];
	}
	free(lcl_r);
	free(ucl_r);
}

/* ---- the target ---- */

/*
 * Filters, scales and scores the samples of one target series (idle periods d), adding to
 * c's counts.
 */
static int score_series(struct worker *w, struct cchart_counter *c, const struct cchart_series *s,
			const struct cchart_load *l, const struct cchart_idle *d, size_t *n_out,
			size_t *viol_out)
{
	const double *val = s->value, *ts = s->t_s;
	const double lcl = c->lcl, ucl = c->ucl;
	size_t viol = 0, dropped = 0, unscaled = 0, icur = 0;
	bool ok = true;

	if (c->scaling != CCHART_SCALE_DONE && !d->nr) {
		/* timestamps unused: not read */
		for (size_t i = 0; i < s->nr; i++) {
			double v = val[i];
			ok &= v - v == 0;
			viol += (v < lcl) | (v > ucl);
		}
	} else if (c->scaling != CCHART_SCALE_DONE) {
		for (size_t i = 0; i < s->nr; i++) {
			double v = val[i];
			bool keep = !cchart_idle_at(d, &icur, ts[i]);
			ok &= finite2(v, ts[i]);
			dropped += !keep;
			viol += keep & ((v < lcl) | (v > ucl));
		}
	} else {
		struct cchart_cursor cur = CCHART_CURSOR_INIT;
		grow_periods(w, l->np);
		cchart_load_factors(c, l, w->pfac);
		for (size_t i = 0; i < s->nr; i++) {
			double v = val[i], f;
			size_t p;
			ok &= finite2(v, ts[i]);
			if (d->nr && cchart_idle_at(d, &icur, ts[i])) {
				dropped++;
				continue;
			}
			p = cchart_load_at(l, &cur, ts[i], w->a->opts.period_s);
			f = p != SIZE_MAX ? w->pfac[p] : NAN;
			if (isnan(f))
				unscaled++;
			else
				v *= f;
			viol += (v < lcl) | (v > ucl);
		}
	}
	if (!ok)
		return fault_series(w, s);
	c->nr_unscaled += unscaled;
	c->dropped_target += dropped;
	*n_out = s->nr - dropped;
	*viol_out = viol;
	return RP_OK;
}

/* Scores every target run; the counter's ratio over all of them. */
static int score_target(struct worker *w, struct cchart_counter *c, double *run_ratio)
{
	for (size_t j = 0; j < w->a->nr_target; j++) {
		const struct cchart_series *s = w->ts[j];
		size_t n = 0, viol = 0;
		int ret;

		if (!s || !s->nr)
			continue;
		ret = score_series(w, c, s, &w->a->load[1][j], &w->a->idle[1][j], &n, &viol);
		if (ret)
			return ret;
		c->nr_target += n;
		c->nr_violations += viol;
		if (n)
			run_ratio[j] = (double)viol / (double)n;
	}
	c->ratio = c->nr_target ? (double)c->nr_violations / (double)c->nr_target : 0;
	return RP_OK;
}

/* ---- one counter ---- */

static void counter_init(struct cchart_counter *c, const char *name)
{
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->ratio = c->threshold = c->excess = c->chance = NAN;
	c->lcl = c->cl = c->ucl = NAN;
	c->alpha = c->beta = c->fit_r = c->fit_p = c->l_ref = NAN;
}

/* The counter's series per run of both sides; its status from their sizes. */
static int map_counter(struct worker *w, struct cchart_counter *c)
{
	const struct analysis *a = w->a;
	size_t nb = 0, nt = 0;
	int ret;

	for (size_t r = 0; r < a->nr_base; r++) {
		w->bs[r] = cchart_run_find(a->in->side[0].runs[r], c->name);
		nb += w->bs[r] ? w->bs[r]->nr : 0;
	}
	for (size_t r = 0; r < a->nr_target; r++) {
		w->ts[r] = cchart_run_find(a->in->side[1].runs[r], c->name);
		nt += w->ts[r] ? w->ts[r]->nr : 0;
	}
	c->status = nb && nt ? CCHART_CHARTED
		    : nb     ? CCHART_ONLY_BASELINE
		    : nt     ? CCHART_ONLY_TARGET
			     : CCHART_NO_SAMPLES;
	if (c->status == CCHART_CHARTED)
		return RP_OK;
	/* not charted, but bad samples are bad input all the same */
	for (size_t r = 0; r < a->nr_base; r++)
		if (w->bs[r] && (ret = check_series(w, w->bs[r])))
			return ret;
	for (size_t r = 0; r < a->nr_target; r++)
		if (w->ts[r] && (ret = check_series(w, w->ts[r])))
			return ret;
	return RP_OK;
}

/* Charts counter number idx into the result. RP_EINPUT with the fault recorded in w. */
static int chart_counter(struct worker *w, size_t idx)
{
	const struct analysis *a = w->a;
	struct cchart_counter *c = &a->out->counters[idx];
	double *blk = a->out->block + idx * a->per;
	double *loo = blk + a->nr_target;
	bool fit = false;
	int ret;

	counter_init(c, a->names[idx]);
	c->run_ratio = blk;
	c->loo_ratio = loo;
	c->loo_lcl = loo + a->nr_base;
	c->loo_ucl = loo + 2 * a->nr_base;
	ret = map_counter(w, c);
	if (ret || c->status != CCHART_CHARTED)
		return ret;
	if (a->scaling) {
		c->l_ref = a->l_ref;
		if (!strcmp(c->name, a->in->load_counter))
			c->scaling = CCHART_SCALE_IS_LOAD;
		else if (isnan(a->l_ref))
			c->scaling = CCHART_SCALE_NO_FIT;
		else
			fit = true;
	}
	ret = gather_base(w, c, fit);
	if (ret)
		return ret;
	if (fit)
		scale_fit(w, c);
	if (c->scaling == CCHART_SCALE_DONE && a->opts.scale_baseline)
		scale_base(w, c);
	c->nr_base = w->off[w->nc];
	c->nr_base_runs = w->nc;
	if (!w->nc) {
		/* every baseline sample fell in an idle period: nothing to chart against */
		c->status = CCHART_IDLE;
		for (size_t r = 0; r < a->nr_target; r++)
			if (w->ts[r] && (ret = check_series(w, w->ts[r])))
				return ret;
		return RP_OK;
	}
	limits_and_threshold(w, c, loo, loo + a->nr_base, loo + 2 * a->nr_base);
	ret = score_target(w, c, blk);
	if (ret)
		return ret;
	if (!c->nr_target) {
		c->status = CCHART_IDLE; /* nothing left to score */
		c->ratio = NAN;
		return RP_OK;
	}
	c->excess = c->ratio - c->threshold;
	c->chance = 1 / ((double)c->nr_base_runs + 1);
	c->no_headroom = !c->threshold_fallback && c->threshold >= 1;
	c->out_of_control = !c->no_headroom && c->ratio > c->threshold + a->opts.margin;
	return RP_OK;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct analysis *a = w->a;

	while (!atomic_load(&a->failed)) {
		size_t idx = atomic_fetch_add(&a->next, 1);
		if (idx >= a->out->nr_counters)
			break;
		if (chart_counter(w, idx)) {
			w->fault_idx = idx;
			atomic_store(&a->failed, true);
		}
	}
	return NULL;
}

/* ---- the whole input ---- */

static size_t nr_workers(const struct analysis *a)
{
	size_t n = a->opts.threads;
	if (!n) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		n = cpus > 0 ? (size_t)cpus : 1;
	}
	n = n < THREADS_MAX ? n : THREADS_MAX;
	n = n < a->out->nr_counters ? n : a->out->nr_counters;
	return n ? n : 1;
}

/* Charts every counter on the workers; reports the fault of the lowest counter index. */
static int run_workers(struct analysis *a)
{
	size_t nw = nr_workers(a), started = 1;
	struct worker *w = xcalloc(nw, sizeof(*w));
	const struct worker *first = NULL;
	int ret = RP_OK;

	for (size_t k = 0; k < nw; k++) {
		w[k].a = a;
		w[k].bs = xcalloc(a->nr_base, sizeof(*w[k].bs));
		w[k].ts = xcalloc(a->nr_target, sizeof(*w[k].ts));
		w[k].off = xmallocarray(a->nr_base + 1, sizeof(*w[k].off));
		w[k].orig = xmallocarray(a->nr_base + 1, sizeof(*w[k].orig));
	}
	/* worker 0 is the calling thread; a thread that cannot be had leaves more work to it */
	for (size_t k = 1; k < nw; k++) {
		if (pthread_create(&w[k].thread, NULL, worker_main, &w[k]))
			break;
		started++;
	}
	worker_main(&w[0]);
	for (size_t k = 1; k < started; k++)
		pthread_join(w[k].thread, NULL);
	for (size_t k = 0; k < nw; k++)
		if (w[k].fault && (!first || w[k].fault_idx < first->fault_idx))
			first = &w[k];
	if (first) {
		ret = RP_EINPUT;
		if (first->fault == FAULT_SAMPLE)
			cchart_bad_sample(first->fault_s, first->fault_i);
		else
			error("counter '%s': %zu baseline samples, more than %u",
			      a->names[first->fault_idx], first->fault_total, (unsigned)POOL_MAX);
	}
	for (size_t k = 0; k < nw; k++)
		worker_release(&w[k]);
	free(w);
	return ret;
}

static int analyze(struct analysis *a)
{
	struct cchart_result *out = a->out;
	struct cchart_run names;
	double none = 1;
	int ret = cchart_names_collect(a->in, &names);

	if (ret)
		goto out;
	out->nr_counters = names.nr;
	out->names = xcalloc(names.nr ? names.nr : 1, sizeof(*out->names));
	out->counters = xcalloc(names.nr ? names.nr : 1, sizeof(*out->counters));
	for (size_t i = 0; i < names.nr; i++)
		out->names[i] = xstrdup(names.series[i]->counter);
	a->names = out->names;
	a->per = a->nr_target + 3 * a->nr_base;
	out->block =
	    xmallocarray(xmallocarray_size(names.nr ? names.nr : 1, a->per), sizeof(*out->block));
	for (size_t i = 0; i < names.nr * a->per; i++)
		out->block[i] = NAN;
	ret = run_workers(a);
	if (ret)
		goto out;
	for (size_t i = 0; i < out->nr_counters; i++) {
		const struct cchart_counter *c = &out->counters[i];
		out->nr_status[c->status]++;
		if (c->status != CCHART_CHARTED)
			continue;
		out->nr_charted++;
		out->nr_out += c->out_of_control;
		out->nr_no_headroom += c->no_headroom;
		if (!c->no_headroom)
			none *= 1 - c->chance;
	}
	out->nr_judged = out->nr_charted - out->nr_no_headroom;
	out->chance_any = 1 - none;
	cchart_rank(out);
out:
	cchart_names_release(&names);
	return ret;
}

int cchart_analyze(const struct cchart_input *in, const struct cchart_opts *opts,
		   struct cchart_result *out)
{
	struct analysis a;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&a, 0, sizeof(a));
	a.in = in;
	a.out = out;
	if (opts)
		a.opts = *opts;
	else
		cchart_opts_init(&a.opts);
	a.nr_base = in->side[0].nr;
	a.nr_target = in->side[1].nr;
	atomic_init(&a.next, 0);
	atomic_init(&a.failed, false);
	ret = check_opts(&a.opts);
	if (ret)
		return ret;
	if (!a.nr_base || !a.nr_target) {
		error("control chart: no %s runs", a.nr_base ? "target" : "baseline");
		return RP_EINPUT;
	}
	out->limits = a.opts.limits;
	out->period_s = a.opts.period_s;
	out->margin = a.opts.margin;
	out->nr_base_runs = a.nr_base;
	out->nr_target_runs = a.nr_target;
	out->scale_baseline = a.opts.scale_baseline;
	a.scaling = in->load_counter && a.opts.scale_load;
	ret = prepare_load(&a);
	if (!ret)
		ret = prepare_filter(&a);
	if (!ret)
		ret = analyze(&a);
	for (int side = 0; side < 2; side++) {
		size_t nr = side ? a.nr_target : a.nr_base;
		for (size_t i = 0; a.load[side] && i < nr; i++)
			free(a.load[side][i].mean);
		for (size_t i = 0; a.idle[side] && i < nr; i++)
			cchart_idle_release(&a.idle[side][i]);
		free(a.load[side]);
		free(a.idle[side]);
	}
	if (ret)
		cchart_result_release(out);
	return ret;
}
