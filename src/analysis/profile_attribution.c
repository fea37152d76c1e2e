/*
 * Absolute, noise-aware attribution (analysis/profile_attribution.h): per function and
 * call path, Welford's mean and variance per side over the runs, the range, the Welch
 * interval of the change and the noise rule.
 */
#include "analysis/profile_attribution.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "util/common.h"

void attribution_release(struct attribution *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nr_funcs; i++)
		free(a->funcs[i].key);
	for (size_t i = 0; i < a->nr_paths; i++)
		free(a->paths[i].key);
	free(a->funcs);
	free(a->paths);
	memset(a, 0, sizeof(*a));
}

void attribution_acc_init(struct attribution_acc *acc)
{
	memset(acc, 0, sizeof(*acc));
	cct_init(&acc->keys);
}

void attribution_acc_release(struct attribution_acc *acc)
{
	if (!acc)
		return;
	cct_release(&acc->keys);
	free(acc->paths);
	free(acc->funcs);
	free(acc->map);
	memset(acc, 0, sizeof(*acc));
}

/* Grows a sums array to n entries, the new ones zero: no run had them yet. */
static void sums_grow(struct attribution_sums **s, size_t n, size_t *alloc)
{
	size_t old = *alloc;
	ALLOC_GROW(*s, n, *alloc);
	if (*alloc > old)
		memset(*s + old, 0, (*alloc - old) * sizeof(**s));
}

/* Folds the current run's value into side s, whose k-th run it is (k >= 1). */
static void sums_fold(struct attribution_sums *x, int s, size_t k)
{
	double d = x->cur - x->mean[s];
	x->mean[s] += d / (double)k;
	x->m2[s] += d * (x->cur - x->mean[s]);
	if (k == 1) {
		x->lo[s] = x->hi[s] = x->cur;
	} else {
		/* A key first met after this side's first run had 0 there: lo and hi start at 0. */
		x->lo[s] = x->cur < x->lo[s] ? x->cur : x->lo[s];
		x->hi[s] = x->cur > x->hi[s] ? x->cur : x->hi[s];
	}
	x->calls[s] += x->cur_calls;
	x->cur = x->cur_calls = 0;
}

/* What add_tree() takes from a tree. */
enum { ADD_PATHS = 1, ADD_FUNCS = 2 };

static int add_tree(struct attribution_acc *acc, const struct cct *t, unsigned what)
{
	struct cct *k = &acc->keys;

	if (!acc->have_weight) {
		cct_copy_weight(k, t);
		acc->have_weight = true;
	} else if (!cct_same_weight(k, t)) {
		error("profiles of different weights cannot be compared in absolute terms: %s%s "
		      "against %s%s",
		      cct_weight_name(k->weight), k->weight_event, cct_weight_name(t->weight),
		      t->weight_event);
		return RP_EINPUT;
	} else {
		k->calls_known = k->calls_known && t->calls_known;
	}
	if (!(what & ADD_PATHS)) {
		/* A table of functions: names only, no contexts in the keys. */
		for (size_t i = 1; i < t->nr_nodes; i++) {
			const struct cct_node *n = &t->nodes[i];
			uint32_t name = cct_intern(k, cct_name(t, n->name));
			sums_grow(&acc->funcs, k->nr_names, &acc->alloc_funcs);
			acc->funcs[name].cur += n->excl;
			acc->funcs[name].cur_calls += n->calls;
			acc->total.cur += n->excl;
		}
		return 0;
	}
	ALLOC_GROW(acc->map, t->nr_nodes, acc->alloc_map);
	for (size_t i = 0; i < t->nr_nodes; i++) {
		const struct cct_node *n = &t->nodes[i];
		uint32_t o = CCT_ROOT, name = 0;
		if (i) {
			name = cct_intern(k, cct_name(t, n->name));
			o = cct_child(k, acc->map[n->parent], name, n->site);
			if (o == CCT_NONE)
				return RP_EINPUT;
		}
		acc->map[i] = o;
		sums_grow(&acc->paths, k->nr_nodes, &acc->alloc_paths);
		sums_grow(&acc->funcs, k->nr_names, &acc->alloc_funcs);
		name = k->nodes[o].name;
		acc->paths[o].cur += n->excl;
		acc->paths[o].cur_calls += n->calls;
		if (what & ADD_FUNCS) {
			acc->funcs[name].cur += n->excl;
			acc->funcs[name].cur_calls += n->calls;
			acc->total.cur += n->excl;
		}
	}
	return 0;
}

int attribution_acc_add_run(struct attribution_acc *acc, int side, const struct cct *const *trees,
			    size_t nr)
{
	return attribution_acc_add_run_funcs(acc, side, trees, nr, NULL, 0);
}

int attribution_acc_add_run_funcs(struct attribution_acc *acc, int side,
				  const struct cct *const *trees, size_t nr,
				  const struct cct *const *funcs, size_t nr_funcs)
{
	size_t k;
	for (size_t i = 0; i < nr + nr_funcs; i++) {
		int ret = i < nr ? add_tree(acc, trees[i], funcs ? ADD_PATHS : ADD_PATHS | ADD_FUNCS)
				 : add_tree(acc, funcs[i - nr], ADD_FUNCS);
		if (ret) {
			/* The run is not added: its partial values are dropped (every entry
			 * allocated; those beyond the keys are zero). */
			for (size_t j = 0; j < acc->alloc_paths; j++)
				acc->paths[j].cur = acc->paths[j].cur_calls = 0;
			for (size_t j = 0; j < acc->alloc_funcs; j++)
				acc->funcs[j].cur = acc->funcs[j].cur_calls = 0;
			acc->total.cur = 0;
			return ret;
		}
	}
	/* A run of no tree still counts: 0 for every key. */
	sums_grow(&acc->paths, acc->keys.nr_nodes, &acc->alloc_paths);
	sums_grow(&acc->funcs, acc->keys.nr_names, &acc->alloc_funcs);
	k = ++acc->runs[side];
	for (size_t j = 0; j < acc->keys.nr_nodes; j++)
		sums_fold(&acc->paths[j], side, k);
	for (size_t j = 0; j < acc->keys.nr_names; j++)
		sums_fold(&acc->funcs[j], side, k);
	sums_fold(&acc->total, side, k);
	return 0;
}

void attribution_classify(struct attribution_entry *e, const size_t runs[2], double alpha)
{
	double var[2], se2 = 0, half = 0;

	e->ci_lo = e->ci_hi = NAN;
	e->class = ATTRIBUTION_NO_SPREAD;
	if (runs[0] < 2 || runs[1] < 2)
		return;
	for (int s = 0; s < 2; s++) {
		var[s] = e->side[s].sd * e->side[s].sd / (double)runs[s];
		se2 += var[s];
	}
	/* Welch-Satterthwaite; no run varying on either side: the change is exact. */
	if (se2 > 0) {
		double den = var[0] * var[0] / (double)(runs[0] - 1) +
			     var[1] * var[1] / (double)(runs[1] - 1);
		half = stats_t_ppf(1 - alpha / 2, se2 * se2 / den) * sqrt(se2);
	}
	e->ci_lo = e->delta - half;
	e->ci_hi = e->delta + half;
	e->class = fabs(e->delta) <= half ? ATTRIBUTION_NOISE : ATTRIBUTION_FINDING;
}

/* The entry of one key from its sums; false when its mean did not change. */
static bool entry_of(const struct attribution_sums *x, const size_t runs[2], bool calls_known,
		     double alpha, struct attribution_entry *e)
{
	memset(e, 0, sizeof(*e));
	for (int s = 0; s < 2; s++) {
		struct attribution_stat *st = &e->side[s];
		st->mean = x->mean[s];
		st->sd =
		    runs[s] >= 2 ? sqrt(x->m2[s] > 0 ? x->m2[s] / (double)(runs[s] - 1) : 0) : NAN;
		st->min = x->lo[s];
		st->max = x->hi[s];
		st->calls = calls_known ? x->calls[s] / (double)runs[s] : NAN;
	}
	e->delta = e->side[1].mean - e->side[0].mean;
	e->share = NAN;
	attribution_classify(e, runs, alpha);
	return e->delta != 0;
}

static int by_abs_delta(const void *x, const void *y)
{
	const struct attribution_entry *a = x, *b = y;
	double da = fabs(a->delta), db = fabs(b->delta);
	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(a->key, b->key);
}

/* The changed keys of one kind (paths: by node, funcs: by name id), ranked, cut to top. */
static void rank(const struct attribution_acc *acc, bool paths, const struct attribution *a,
		 size_t top, struct attribution_entry **out, size_t *nr, size_t *changed,
		 size_t *findings, size_t *moved)
{
	size_t n = paths ? acc->keys.nr_nodes : acc->keys.nr_names, k = 0;
	const struct attribution_sums *sums = paths ? acc->paths : acc->funcs;
	struct attribution_entry *all = xcalloc(n ? n : 1, sizeof(*all));
	struct strbuf sb = STRBUF_INIT;
	/* Counted events are whole numbers in every run, so a change of their mean is 0 or at
	 * least 1 / (runs A x runs B). Less is an artefact of callgrind's call-path estimate (a
	 * function's cost split over its contexts moves when another function's cost does). */
	double residue = a->weight == CCT_WEIGHT_EVENT
			     ? 0.5 / ((double)a->runs[0] * (double)a->runs[1])
			     : 0;

	*findings = *moved = 0;
	for (size_t i = 0; i < n; i++) {
		struct attribution_entry *e = &all[k];
		if (!entry_of(&sums[i], a->runs, a->calls_known, a->alpha, e) ||
		    fabs(e->delta) <= residue)
			continue;
		if (a->total.delta != 0)
			e->share = e->delta / a->total.delta;
		if (paths && a->weight == CCT_WEIGHT_EVENT && i != CCT_ROOT) {
			const struct attribution_sums *f = &acc->funcs[acc->keys.nodes[i].name];
			e->moved = fabs(f->mean[1] - f->mean[0]) <= residue;
		}
		strbuf_reset(&sb);
		if (!paths)
			strbuf_addstr(&sb, cct_name(&acc->keys, (uint32_t)i));
		else if (i == CCT_ROOT)
			strbuf_addstr(&sb, cct_name(&acc->keys, acc->keys.nodes[CCT_ROOT].name));
		else
			cct_path(&acc->keys, (uint32_t)i, &sb);
		e->key = xstrdup(sb.buf);
		/* a moved path is its function's split, not a finding of its own */
		*findings += e->class == ATTRIBUTION_FINDING && !e->moved;
		*moved += e->class == ATTRIBUTION_FINDING && e->moved;
		k++;
	}
	qsort(all, k, sizeof(*all), by_abs_delta);
	*changed = k;
	*nr = top && k > top ? top : k;
	for (size_t i = *nr; i < k; i++)
		free(all[i].key);
	*out = all;
	strbuf_release(&sb);
}

int attribution_acc_finish(const struct attribution_acc *acc, double alpha, size_t top,
			   struct attribution *out)
{
	memset(out, 0, sizeof(*out));
	if (!acc->runs[0] || !acc->runs[1]) {
		error("an attribution needs a run on each side (%zu + %zu)", acc->runs[0],
		      acc->runs[1]);
		return RP_EINPUT;
	}
	out->weight = acc->keys.weight;
	memcpy(out->weight_event, acc->keys.weight_event, sizeof(out->weight_event));
	out->calls_known = acc->keys.calls_known;
	out->alpha = alpha;
	out->runs[0] = acc->runs[0];
	out->runs[1] = acc->runs[1];
	entry_of(&acc->total, out->runs, false, alpha, &out->total);
	size_t no_moved;
	rank(acc, false, out, top, &out->funcs, &out->nr_funcs, &out->changed_funcs,
	     &out->finding_funcs, &no_moved);
	rank(acc, true, out, top, &out->paths, &out->nr_paths, &out->changed_paths,
	     &out->finding_paths, &out->moved_paths);
	return 0;
}

int attribution_of_runs(const struct cct *const *runs[2], const size_t nr[2], double alpha,
			size_t top, struct attribution *out)
{
	struct attribution_acc acc;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	attribution_acc_init(&acc);
	for (int s = 0; s < 2 && !ret; s++)
		for (size_t i = 0; i < nr[s] && !ret; i++)
			ret = attribution_acc_add_run(&acc, s, &runs[s][i], 1);
	if (!ret)
		ret = attribution_acc_finish(&acc, alpha, top, out);
	attribution_acc_release(&acc);
	return ret;
}
