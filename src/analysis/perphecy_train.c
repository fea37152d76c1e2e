/*
 * Learning Perphecy predictors (docs/prediction.md): the paper's Algorithm 1, hit and
 * dismiss rates, and k-fold cross-validation by commit.
 */
#include "analysis/perphecy.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "util/rng.h"
#include "util/common.h"

static bool at_most(int t)
{
	return perphecy_template_direction((enum perphecy_template)t) == PERPHECY_AT_MOST;
}

/* RP_EINPUT after error() when a value is neither NAN nor in its template's range. */
static int check_tuple(const struct perphecy_tuple *t, size_t idx)
{
	for (int k = 0; k < PERPHECY_NR_TEMPLATES; k++) {
		double x = t->values.v[k];
		if (isnan(x))
			continue;
		if (at_most(k) ? !(x > 0 && x <= 100) : !(x >= 0 && x <= PERPHECY_MAX_VALUE)) {
			error("perphecy: training tuple %zu (commit %" PRIu64 ", benchmark %" PRIu32
			      "): %s value %g is outside %s",
			      idx, t->commit, t->bench,
			      perphecy_template_label((enum perphecy_template)k), x,
			      at_most(k) ? "(0, 100]" : "[0, 1e12]");
			return RP_EINPUT;
		}
	}
	return RP_OK;
}

static int check_input(const struct perphecy_tuple *t, size_t n, unsigned templates,
		       bool allow_auto)
{
	if (!n) {
		error("perphecy: no training data: no (commit, ancestor, benchmark) tuple with "
		      "a decided verdict; measure some commits first");
		return RP_EINPUT;
	}
	if (!(templates & PERPHECY_ALL_TEMPLATES)) {
		error("perphecy: no indicator template enabled");
		return RP_EINPUT;
	}
	if ((templates & PERPHECY_TEMPLATES_AUTO) && !allow_auto) {
		error("perphecy: choosing the template set needs a dismiss goal, whose inner "
		      "cross-validation chooses it");
		return RP_EINPUT;
	}
	for (size_t i = 0; i < n; i++)
		if (check_tuple(&t[i], i))
			return RP_EINPUT;
	return RP_OK;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Misses whose value (sorted, no NAN) is >= thr, or <= thr. */
static size_t count_flagged(const double *vals, size_t m, double thr, bool le)
{
	size_t lo = 0, hi = m;
	/* first index whose value is >= thr (le: > thr) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (le ? vals[mid] <= thr : vals[mid] < thr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return le ? lo : m - lo;
}

/* maxthresh(h, i): the most selective integer threshold at which value x still fires. */
static int64_t max_thresh(int t, double x)
{
	return at_most(t) ? (int64_t)ceil(x) : (int64_t)floor(x);
}

/* The template's integer thresholds at which some tuple of idx[0..n) fires, ascending. */
static size_t thresholds_of(const struct perphecy_tuple *t, const size_t *idx, size_t n, int k,
			    int64_t *out)
{
	size_t m = 0, w = 0;
	for (size_t j = 0; j < n; j++) {
		double x = t[idx[j]].values.v[k];
		if (!isnan(x))
			out[m++] = max_thresh(k, x);
	}
	qsort(out, m, sizeof(*out), cmp_i64);
	for (size_t j = 0; j < m; j++)
		if (!w || out[w - 1] != out[j])
			out[w++] = out[j];
	return w;
}

/*
 * The next looser threshold than `cur` among thr[0..m) (ascending): the largest below
 * it (fires when value >= X) or the smallest above it (value <= X). False when none.
 */
static bool next_looser(int k, const int64_t *thr, size_t m, int64_t cur, int64_t *out)
{
	if (at_most(k)) {
		for (size_t j = 0; j < m; j++)
			if (thr[j] > cur) {
				*out = thr[j];
				return true;
			}
		return false;
	}
	for (size_t j = m; j-- > 0;)
		if (thr[j] < cur) {
			*out = thr[j];
			return true;
		}
	return false;
}

/*
 * The dismiss budget (docs/prediction.md, "A dismiss budget"): loosens the thresholds of
 * p's indicators, cheapest step first, while p still dismisses at least min_dismiss of
 * the misses of idx[0..n). A step moves one indicator to its next looser threshold (the
 * next one at which a training tuple fires); its price is the misses it flags that no
 * indicator flagged before. Ties: the indicator picked first. Never tightens (tighten()
 * does, when p flags more than the budget allows).
 */
static void relax(const struct perphecy_tuple *t, const size_t *idx, size_t n, double min_dismiss,
		  struct perphecy_predictor *p)
{
	int64_t *thr[PERPHECY_NR_TEMPLATES] = {NULL};
	size_t nr_thr[PERPHECY_NR_TEMPLATES] = {0};
	bool *flagged = xcalloc(n ? n : 1, sizeof(*flagged));
	size_t misses = 0, nr_flagged = 0, allowed;

	for (size_t j = 0; j < n; j++) {
		const struct perphecy_tuple *u = &t[idx[j]];
		if (u->hit)
			continue;
		misses++;
		flagged[j] = perphecy_predict(p, &u->values, NULL);
		nr_flagged += flagged[j];
	}
	/* At most this many misses flagged: dismissed / misses >= min_dismiss. */
	allowed = (size_t)floor((1.0 - min_dismiss) * (double)misses + 1e-9);
	for (size_t k = 0; k < p->nr; k++) {
		int tm = p->ind[k].tmpl;
		thr[tm] = xmallocarray(n ? n : 1, sizeof(*thr[tm]));
		nr_thr[tm] = thresholds_of(t, idx, n, tm, thr[tm]);
	}
	while (nr_flagged <= allowed) {
		size_t best = SIZE_MAX, best_price = SIZE_MAX;
		int64_t best_thr = 0;
		for (size_t k = 0; k < p->nr; k++) {
			struct perphecy_indicator next = p->ind[k];
			size_t price = 0;
			if (!next_looser(next.tmpl, thr[next.tmpl], nr_thr[next.tmpl],
					 p->ind[k].threshold, &next.threshold))
				continue;
			for (size_t j = 0; j < n; j++)
				price += !t[idx[j]].hit && !flagged[j] &&
					 perphecy_indicator_fires(&next, &t[idx[j]].values);
			if (price < best_price) {
				best = k;
				best_price = price;
				best_thr = next.threshold;
			}
		}
		if (best == SIZE_MAX || nr_flagged + best_price > allowed)
			break;
		p->ind[best].threshold = best_thr;
		for (size_t j = 0; j < n; j++) {
			if (t[idx[j]].hit || flagged[j] ||
			    !perphecy_indicator_fires(&p->ind[best], &t[idx[j]].values))
				continue;
			flagged[j] = true;
			nr_flagged++;
		}
	}
	for (int k = 0; k < PERPHECY_NR_TEMPLATES; k++)
		free(thr[k]);
	free(flagged);
}

/*
 * The next tighter threshold than `cur` among thr[0..m) (ascending): the smallest above it
 * (fires when value >= X) or the largest below it (value <= X). False when none: no
 * tighter threshold fires on any tuple.
 */
static bool next_tighter(int k, const int64_t *thr, size_t m, int64_t cur, int64_t *out)
{
	if (at_most(k)) {
		for (size_t j = m; j-- > 0;)
			if (thr[j] < cur) {
				*out = thr[j];
				return true;
			}
		return false;
	}
	for (size_t j = 0; j < m; j++)
		if (thr[j] > cur) {
			*out = thr[j];
			return true;
		}
	return false;
}

/* Whether a step that gains `gain` misses and loses `loss` hits beats the best so far. */
static bool tighter_step_better(size_t gain, size_t loss, size_t best_gain, size_t best_loss)
{
	if ((gain > 0) != (best_gain > 0))
		return gain > 0;
	if (!gain)
		return loss < best_loss;
	/* the most misses per hit lost: gain / loss against best_gain / best_loss */
	if (gain * best_loss != best_gain * loss)
		return gain * best_loss > best_gain * loss;
	return loss || best_loss ? loss < best_loss : gain > best_gain;
}

/*
 * The budget's other half (docs/prediction.md, "A dismiss budget"): when p flags more
 * than 1 - min_dismiss of the misses of idx[0..n) (Algorithm 1's cover alone dismisses
 * fewer than the budget), tightens its indicators until it does not. A step moves one
 * indicator to its next tighter threshold (the next one at which fewer training tuples
 * fire), or drops it when none is tighter; it gains the misses that no indicator flags
 * any more and loses the hits that none predicts any more. The step with the most misses
 * gained per hit lost is taken (one that loses no hit before any that does, the most
 * misses first; ties: the indicator picked first); when no step gains a miss, the one
 * that loses the fewest hits, so that a threshold below the misses can move past a hit.
 */
static void tighten(const struct perphecy_tuple *t, const size_t *idx, size_t n,
		    double min_dismiss, struct perphecy_predictor *p)
{
	int64_t *thr[PERPHECY_NR_TEMPLATES] = {NULL};
	size_t nr_thr[PERPHECY_NR_TEMPLATES] = {0};
	unsigned char *fires = xcalloc(n ? n : 1, sizeof(*fires)); /* indicators firing */
	size_t misses = 0, nr_flagged = 0, allowed;

	for (size_t j = 0; j < n; j++) {
		const struct perphecy_tuple *u = &t[idx[j]];
		for (size_t k = 0; k < p->nr; k++)
			fires[j] += perphecy_indicator_fires(&p->ind[k], &u->values);
		if (!u->hit) {
			misses++;
			nr_flagged += fires[j] > 0;
		}
	}
	allowed = (size_t)floor((1.0 - min_dismiss) * (double)misses + 1e-9);
	for (size_t k = 0; k < p->nr; k++) {
		int tm = p->ind[k].tmpl;
		thr[tm] = xmallocarray(n ? n : 1, sizeof(*thr[tm]));
		nr_thr[tm] = thresholds_of(t, idx, n, tm, thr[tm]);
	}
	while (nr_flagged > allowed && p->nr) {
		size_t best = SIZE_MAX, best_gain = 0, best_loss = 0;
		struct perphecy_indicator best_next = {0};
		bool best_drop = false;
		for (size_t k = 0; k < p->nr; k++) {
			struct perphecy_indicator next = p->ind[k];
			bool drop = !next_tighter(next.tmpl, thr[next.tmpl], nr_thr[next.tmpl],
						  p->ind[k].threshold, &next.threshold);
			size_t gain = 0, loss = 0;
			for (size_t j = 0; j < n; j++) {
				const struct perphecy_values *v = &t[idx[j]].values;
				if (fires[j] != 1 || !perphecy_indicator_fires(&p->ind[k], v) ||
				    (!drop && perphecy_indicator_fires(&next, v)))
					continue;
				if (t[idx[j]].hit)
					loss++;
				else
					gain++;
			}
			if (best == SIZE_MAX ||
			    tighter_step_better(gain, loss, best_gain, best_loss)) {
				best = k;
				best_gain = gain;
				best_loss = loss;
				best_next = next;
				best_drop = drop;
			}
		}
		for (size_t j = 0; j < n; j++) {
			const struct perphecy_values *v = &t[idx[j]].values;
			if (!perphecy_indicator_fires(&p->ind[best], v) ||
			    (!best_drop && perphecy_indicator_fires(&best_next, v)))
				continue;
			if (!--fires[j] && !t[idx[j]].hit)
				nr_flagged--;
		}
		if (best_drop) {
			memmove(&p->ind[best], &p->ind[best + 1],
				(p->nr - best - 1) * sizeof(p->ind[0]));
			p->nr--;
		} else {
			p->ind[best].threshold = best_next.threshold;
		}
	}
	for (int k = 0; k < PERPHECY_NR_TEMPLATES; k++)
		free(thr[k]);
	free(fires);
}

/*
 * Algorithm 1 on the tuples t[idx[0..n)] (validated by the caller), templates in `mask`.
 * Loops and comparisons as in the paper; see docs/prediction.md for the one correction.
 */
static void train_core(const struct perphecy_tuple *t, const size_t *idx, size_t n, unsigned mask,
		       enum perphecy_cover how, double min_dismiss, struct perphecy_predictor *out)
{
	double *vals[PERPHECY_NR_TEMPLATES] = {NULL};
	size_t nr_vals[PERPHECY_NR_TEMPLATES] = {0};
	size_t *hits, nr_hits = 0, *cover, nr_cover = 0;
	size_t *min_price;
	int64_t *min_thresh;
	int *min_ind;

	perphecy_predictor_init(out);
	hits = xmallocarray(n ? n : 1, sizeof(*hits));
	for (int k = 0; k < PERPHECY_NR_TEMPLATES; k++)
		if (mask & (1u << k))
			vals[k] = xmallocarray(n ? n : 1, sizeof(*vals[k]));
	for (size_t j = 0; j < n; j++) {
		const struct perphecy_tuple *u = &t[idx[j]];
		if (u->hit) {
			hits[nr_hits++] = idx[j];
			continue;
		}
		for (int k = 0; k < PERPHECY_NR_TEMPLATES; k++)
			if (vals[k] && !isnan(u->values.v[k]))
				vals[k][nr_vals[k]++] = u->values.v[k];
	}
	out->nr_hits = nr_hits;
	out->nr_misses = n - nr_hits;
	if (!nr_hits) {
		/* H empty: the trivial predictor, false on everything. */
		out->no_hits = true;
		goto out_vals;
	}
	for (int k = 0; k < PERPHECY_NR_TEMPLATES; k++)
		if (vals[k])
			qsort(vals[k], nr_vals[k], sizeof(*vals[k]), cmp_double);

	/* Lines 2-15: for each hit, the template and threshold covering it at the lowest price. */
	min_price = xmallocarray(nr_hits, sizeof(*min_price));
	min_thresh = xmallocarray(nr_hits, sizeof(*min_thresh));
	min_ind = xmallocarray(nr_hits, sizeof(*min_ind));
	for (size_t h = 0; h < nr_hits; h++) {
		const struct perphecy_values *v = &t[hits[h]].values;
		min_price[h] = SIZE_MAX; /* infinity */
		min_thresh[h] = 0;
		min_ind[h] = -1;
		for (int k = 0; k < PERPHECY_NR_TEMPLATES; k++) {
			int64_t thresh;
			size_t price;
			if (!vals[k] || isnan(v->v[k]))
				continue; /* no threshold of this template covers h */
			thresh = max_thresh(k, v->v[k]);
			price = count_flagged(vals[k], nr_vals[k], (double)thresh, at_most(k));
			if (price < min_price[h]) {
				min_price[h] = price;
				min_thresh[h] = thresh;
				min_ind[h] = k;
			}
		}
	}

	/* Lines 16-30: cover the most expensive remaining hit first, until all are covered. */
	cover = xmallocarray(nr_hits, sizeof(*cover));
	for (size_t h = 0; h < nr_hits; h++) {
		if (min_ind[h] < 0)
			out->nr_uncovered++;
		else
			cover[nr_cover++] = h;
	}
	while (nr_cover) {
		struct perphecy_indicator ind;
		size_t best = 0, kept = 0;
		for (size_t j = 1; j < nr_cover; j++)
			if (min_price[cover[j]] > min_price[cover[best]])
				best = j;
		ind.tmpl = (enum perphecy_template)min_ind[cover[best]];
		ind.threshold = min_thresh[cover[best]];
		/* Thresholds come from validated values: always in range. */
		perphecy_predictor_add(out, ind.tmpl, ind.threshold);
		/*
		 * Line 29. The target covers the hit it was chosen for by construction of
		 * maxthresh; dropping that hit explicitly also guarantees termination.
		 * EVERY_HIT drops only that hit: the others still add their own indicator.
		 */
		for (size_t j = 0; j < nr_cover; j++)
			if (j != best &&
			    (how == PERPHECY_COVER_EVERY_HIT ||
			     !perphecy_indicator_fires(&ind, &t[hits[cover[j]]].values)))
				cover[kept++] = cover[j];
		nr_cover = kept;
	}
	if (min_dismiss >= 0) {
		/* at most one of the two moves a threshold: p is under or over the budget */
		relax(t, idx, n, min_dismiss, out);
		tighten(t, idx, n, min_dismiss, out);
	}
	free(cover);
	free(min_ind);
	free(min_thresh);
	free(min_price);
out_vals:
	for (int k = 0; k < PERPHECY_NR_TEMPLATES; k++)
		free(vals[k]);
	free(hits);
}

int perphecy_cover_parse(const char *s, enum perphecy_cover *out)
{
	if (!strcmp(s, "paper"))
		*out = PERPHECY_COVER_PAPER;
	else if (!strcmp(s, "every-hit"))
		*out = PERPHECY_COVER_EVERY_HIT;
	else
		return -1;
	return 0;
}

const char *perphecy_cover_name(enum perphecy_cover cover)
{
	return cover == PERPHECY_COVER_EVERY_HIT ? "every-hit" : "paper";
}

int perphecy_train(const struct perphecy_tuple *t, size_t n, unsigned templates,
		   struct perphecy_predictor *out)
{
	return perphecy_train_cover(t, n, templates, PERPHECY_COVER_PAPER, out);
}

int perphecy_train_cover(const struct perphecy_tuple *t, size_t n, unsigned templates,
			 enum perphecy_cover cover, struct perphecy_predictor *out)
{
	return perphecy_train_budget(t, n, templates, cover, -1, out);
}

/* The indices 0..n-1: every tuple, for training on all of them. */
static size_t *all_tuples(size_t n)
{
	size_t *idx = xmallocarray(n ? n : 1, sizeof(*idx));

	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	return idx;
}

static int check_min_dismiss(double min_dismiss)
{
	if (min_dismiss < 0 || min_dismiss <= 1)
		return RP_OK;
	error("perphecy: a dismiss budget of %g is not a rate between 0 and 1 (0.85: at least "
	      "85%% of the training misses dismissed)",
	      min_dismiss);
	return RP_EINPUT;
}

int perphecy_train_budget(const struct perphecy_tuple *t, size_t n, unsigned templates,
			  enum perphecy_cover cover, double min_dismiss,
			  struct perphecy_predictor *out)
{
	size_t *idx;
	int ret;

	perphecy_predictor_init(out);
	ret = check_input(t, n, templates, false);
	if (!ret)
		ret = check_min_dismiss(min_dismiss);
	if (ret)
		return ret;
	idx = all_tuples(n);
	train_core(t, idx, n, templates & PERPHECY_ALL_TEMPLATES, cover, min_dismiss, out);
	free(idx);
	return RP_OK;
}

/* A dismiss goal: off (< 0) unless `required`, else a rate, and not beside a budget. */
static int check_goal(double goal, double min_dismiss, bool required)
{
	if (goal < 0 && !required)
		return RP_OK;
	if (!(goal >= 0 && goal <= 1)) {
		error("perphecy: a dismiss goal of %g is not a rate between 0 and 1 (0.85: at least "
		      "85%% of the misses dismissed in cross-validation)",
		      goal);
		return RP_EINPUT;
	}
	if (min_dismiss >= 0) {
		error("perphecy: a dismiss goal chooses the dismiss budget; give one or the other");
		return RP_EINPUT;
	}
	return RP_OK;
}

static void eval_count(struct perphecy_eval *e, bool hit, bool predicted)
{
	if (hit) {
		e->hits++;
		e->hits_predicted += predicted;
	} else {
		e->misses++;
		e->misses_dismissed += !predicted;
	}
}

static void eval_finish(struct perphecy_eval *e)
{
	e->hit_rate = e->hits ? (double)e->hits_predicted / (double)e->hits : NAN;
	e->dismiss_rate = e->misses ? (double)e->misses_dismissed / (double)e->misses : NAN;
}

void perphecy_evaluate(const struct perphecy_predictor *p, const struct perphecy_tuple *t, size_t n,
		       struct perphecy_eval *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		eval_count(out, t[i].hit, perphecy_predict(p, &t[i].values, NULL));
	eval_finish(out);
}

void perphecy_cv_opts_init(struct perphecy_cv_opts *opts)
{
	opts->k = 10;
	opts->seed = 1;
	opts->scope = PERPHECY_COMMON;
	opts->templates = PERPHECY_PAPER_TEMPLATES;
	opts->cover = PERPHECY_COVER_PAPER;
	opts->min_dismiss = -1;
	opts->dismiss_goal = -1;
}

void perphecy_cv_result_release(struct perphecy_cv_result *r)
{
	if (!r)
		return;
	free(r->per_bench);
	free(r->predicted);
	memset(r, 0, sizeof(*r));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Sorts and deduplicates keys[0..n); returns the number left. */
static size_t sort_unique(uint64_t *keys, size_t n)
{
	size_t m = 0;
	qsort(keys, n, sizeof(*keys), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!m || keys[m - 1] != keys[i])
			keys[m++] = keys[i];
	return m;
}

static size_t find_key(const uint64_t *keys, size_t m, uint64_t key)
{
	const uint64_t *p = bsearch(&key, keys, m, sizeof(*keys), cmp_u64);
	return (size_t)(p - keys);
}

/* The distinct commits of t[idx[0..n)] (idx NULL: t[0..n)), sorted; *m their number. */
static uint64_t *unique_commits(const struct perphecy_tuple *t, const size_t *idx, size_t n,
				size_t *m)
{
	uint64_t *commits = xmallocarray(n ? n : 1, sizeof(*commits));

	for (size_t i = 0; i < n; i++)
		commits[i] = t[idx ? idx[i] : i].commit;
	*m = sort_unique(commits, n);
	return commits;
}

/*
 * fold[i] for every tuple t[idx[i]] (idx NULL: t[i]): commits sorted, shuffled with the
 * seed, dealt round-robin.
 */
static void assign_folds(const struct perphecy_tuple *t, const size_t *idx, size_t n, unsigned k,
			 uint64_t seed, const uint64_t *commits, size_t nr_commits, unsigned *fold)
{
	unsigned *fold_of = xmallocarray(nr_commits, sizeof(*fold_of));
	size_t *order = xmallocarray(nr_commits, sizeof(*order));
	struct rng r;

	rng_seed(&r, seed);
	for (size_t i = 0; i < nr_commits; i++)
		order[i] = i;
	for (size_t i = nr_commits - 1; i > 0; i--) {
		/* j uniform in [0, i]: multiply-shift, no modulo bias worth mentioning */
		size_t j = (size_t)(((rng_next(&r) >> 32) * (uint64_t)(i + 1)) >> 32);
		size_t tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	for (size_t pos = 0; pos < nr_commits; pos++)
		fold_of[order[pos]] = (unsigned)(pos % k);
	for (size_t i = 0; i < n; i++)
		fold[i] = fold_of[find_key(commits, nr_commits, t[idx ? idx[i] : i].commit)];
	free(order);
	free(fold_of);
}

/*
 * The dismiss goal (docs/prediction.md, "A dismiss goal"): the candidate budgets, tightest
 * first: none (Algorithm 1's thresholds), then goal + 0.10 down to the goal in steps of
 * 0.01 (those above 1 left out). Returns how many were written to cand.
 */
#define GOAL_CANDIDATES 12
static size_t goal_candidates(double goal, double *cand)
{
	size_t m = 0;

	cand[m++] = -1;
	for (int step = 10; step >= 0; step--) {
		/* to 4 decimals, so that 0.85 + 0.07 is 0.92 as written */
		double b = round((goal + 0.01 * step) * 1e4) / 1e4;
		if (b <= 1 + 1e-9)
			cand[m++] = b < 1 ? b : 1;
	}
	return m;
}

/*
 * Inner cross-validation of one budget on the tuples t[idx[0..n)], folds given: each fold
 * predicted by the predictor trained on the others; pooled into *e.
 */
static void inner_cv(const struct perphecy_tuple *t, const size_t *idx, size_t n,
		     const unsigned *fold, unsigned k, unsigned mask, enum perphecy_cover how,
		     double min_dismiss, size_t *train, struct perphecy_eval *e)
{
	memset(e, 0, sizeof(*e));
	for (unsigned f = 0; f < k; f++) {
		struct perphecy_predictor pred;
		size_t nr_train = 0;

		for (size_t j = 0; j < n; j++)
			if (fold[j] != f)
				train[nr_train++] = idx[j];
		if (nr_train == n)
			continue;
		train_core(t, train, nr_train, mask, how, min_dismiss, &pred);
		for (size_t j = 0; j < n; j++)
			if (fold[j] == f)
				eval_count(e, t[idx[j]].hit, perphecy_predict(&pred, &t[idx[j]].values,
									      NULL));
	}
	eval_finish(e);
}

/*
 * The candidate template sets of `mask`: the paper's and the cost's with
 * PERPHECY_TEMPLATES_AUTO (docs/prediction.md, "Choosing the template set"), the paper's
 * first; else mask alone. Returns how many.
 */
static size_t goal_template_sets(unsigned mask, unsigned sets[2])
{
	if (!(mask & PERPHECY_TEMPLATES_AUTO)) {
		sets[0] = mask & PERPHECY_ALL_TEMPLATES;
		return 1;
	}
	sets[0] = PERPHECY_PAPER_TEMPLATES;
	sets[1] = PERPHECY_PAPER_TEMPLATES | PERPHECY_COST_TEMPLATES;
	return 2;
}

/*
 * Trains on t[idx[0..n)] with the budget (and, for PERPHECY_TEMPLATES_AUTO, the template
 * set) an inner cross-validation of those tuples chose for `goal` (perphecy_train_goal()).
 */
static void train_goal_core(const struct perphecy_tuple *t, const size_t *idx, size_t n,
			    unsigned mask, enum perphecy_cover how, double goal, uint64_t seed,
			    struct perphecy_predictor *out, struct perphecy_goal_choice *choice)
{
	double cand[GOAL_CANDIDATES];
	size_t nr_cand = goal_candidates(goal, cand), nr_commits;
	unsigned sets[2];
	size_t nr_sets = goal_template_sets(mask, sets);
	uint64_t *commits = unique_commits(t, idx, n, &nr_commits);
	struct perphecy_goal_choice best = {.min_dismiss = -1, .templates = sets[0]};
	bool any_hit = false;

	for (size_t j = 0; j < n && !any_hit; j++)
		any_hit = t[idx[j]].hit;
	eval_finish(&best.inner); /* no inner cross-validation: no rates */
	best.reached = !any_hit;  /* the trivial predictor dismisses every miss */
	/* No hit: the trivial predictor whatever the budget, nothing to choose. */
	if (any_hit && nr_commits >= 2) {
		unsigned k = nr_commits < PERPHECY_GOAL_FOLDS ? (unsigned)nr_commits
							      : PERPHECY_GOAL_FOLDS;
		unsigned *fold = xmallocarray(n, sizeof(*fold));
		size_t *train = xmallocarray(n, sizeof(*train));

		assign_folds(t, idx, n, k, seed, commits, nr_commits, fold);
		for (size_t m = 0; m < nr_sets; m++) {
			struct perphecy_goal_choice set_best = {.min_dismiss = -1,
								.templates = sets[m]};
			bool have = false;

			set_best.k = k;
			for (size_t c = 0; c < nr_cand; c++) {
				struct perphecy_eval e;
				bool reached;

				inner_cv(t, idx, n, fold, k, sets[m], how, cand[c], train, &e);
				/* No miss: nothing to dismiss, every budget reaches the goal. */
				reached = isnan(e.dismiss_rate) || e.dismiss_rate >= goal - 1e-12;
				/*
				 * The loosest that reaches the goal: on the same folds a looser
				 * budget takes more of the same steps, so it predicts every hit
				 * a tighter one does; when none reaches it, the tightest (no
				 * budget).
				 */
				if (!have || reached) {
					set_best.min_dismiss = cand[c];
					set_best.inner = e;
					set_best.reached = reached;
					have = true;
				}
			}
			/*
			 * Between sets: the one whose choice reaches the goal and predicts the
			 * most inner hits; ties, and none reaching it, keep the earlier (the
			 * paper's).
			 */
			if (!m || (set_best.reached &&
				   (!best.reached ||
				    set_best.inner.hits_predicted > best.inner.hits_predicted)))
				best = set_best;
		}
		free(train);
		free(fold);
	}
	free(commits);
	train_core(t, idx, n, best.templates, how, best.min_dismiss, out);
	if (choice)
		*choice = best;
}

/* Records a fold's choice in the result's range of chosen budgets. */
static void goal_chosen(struct perphecy_cv_result *out, const struct perphecy_goal_choice *ch)
{
	out->nr_goal_folds++;
	out->nr_goal_unreached += !ch->reached;
	out->nr_goal_cost += !!(ch->templates & PERPHECY_COST_TEMPLATES);
	if (ch->min_dismiss < 0) {
		out->nr_goal_none++;
		return;
	}
	if (isnan(out->chosen_lo) || ch->min_dismiss < out->chosen_lo)
		out->chosen_lo = ch->min_dismiss;
	if (isnan(out->chosen_hi) || ch->min_dismiss > out->chosen_hi)
		out->chosen_hi = ch->min_dismiss;
}

int perphecy_cross_validate(const struct perphecy_tuple *t, size_t n,
			    const struct perphecy_cv_opts *opts, struct perphecy_cv_result *out)
{
	struct perphecy_cv_opts defaults;
	uint64_t *commits = NULL, *benches = NULL;
	size_t nr_commits, nr_benches;
	unsigned *fold = NULL, k;
	size_t *bench_of = NULL, *train = NULL, *test = NULL;
	size_t groups, *group_start = NULL, *by_group = NULL;
	bool *predicted = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!opts) {
		perphecy_cv_opts_init(&defaults);
		opts = &defaults;
	}
	if (opts->k < 2) {
		error("perphecy: cross-validation needs k >= 2 folds, got %u", opts->k);
		return RP_EINPUT;
	}
	ret = check_input(t, n, opts->templates, opts->dismiss_goal >= 0);
	if (!ret)
		ret = check_min_dismiss(opts->min_dismiss);
	if (!ret)
		ret = check_goal(opts->dismiss_goal, opts->min_dismiss, false);
	if (ret)
		return ret;
	out->chosen_lo = out->chosen_hi = NAN;

	commits = unique_commits(t, NULL, n, &nr_commits);
	benches = xmallocarray(n, sizeof(*benches));
	for (size_t i = 0; i < n; i++)
		benches[i] = t[i].bench;
	nr_benches = sort_unique(benches, n);
	if (nr_commits < 2) {
		error("perphecy: cross-validation needs the tuples of at least 2 commits, got %zu "
		      "commit (%zu tuples)",
		      nr_commits, n);
		ret = RP_EINPUT;
		goto out;
	}
	k = opts->k < nr_commits ? opts->k : (unsigned)nr_commits;
	fold = xmallocarray(n, sizeof(*fold));
	assign_folds(t, NULL, n, k, opts->seed, commits, nr_commits, fold);
	bench_of = xmallocarray(n, sizeof(*bench_of));
	for (size_t i = 0; i < n; i++)
		bench_of[i] = find_key(benches, nr_benches, t[i].bench);

	/*
	 * Groups of tuples trained together: all (common), or one per benchmark, as index
	 * lists in tuple order (counting sort by benchmark).
	 */
	groups = opts->scope == PERPHECY_PER_BENCH ? nr_benches : 1;
	group_start = xcalloc(groups + 1, sizeof(*group_start));
	by_group = xmallocarray(n, sizeof(*by_group));
	for (size_t i = 0; i < n; i++)
		group_start[(groups > 1 ? bench_of[i] : 0) + 1]++;
	for (size_t g = 0; g < groups; g++)
		group_start[g + 1] += group_start[g];
	{
		size_t *next = xmallocarray(groups, sizeof(*next));
		memcpy(next, group_start, groups * sizeof(*next));
		for (size_t i = 0; i < n; i++)
			by_group[next[groups > 1 ? bench_of[i] : 0]++] = i;
		free(next);
	}

	train = xmallocarray(n, sizeof(*train));
	test = xmallocarray(n, sizeof(*test));
	predicted = xcalloc(n, sizeof(*predicted));
	for (unsigned f = 0; f < k; f++) {
		for (size_t g = 0; g < groups; g++) {
			struct perphecy_predictor pred;
			size_t nr_train = 0, nr_test = 0;
			for (size_t j = group_start[g]; j < group_start[g + 1]; j++) {
				size_t i = by_group[j];
				if (fold[i] == f)
					test[nr_test++] = i;
				else
					train[nr_train++] = i;
			}
			if (!nr_test)
				continue;
			if (opts->dismiss_goal >= 0) {
				struct perphecy_goal_choice ch;
				train_goal_core(t, train, nr_train,
						opts->templates, opts->cover,
						opts->dismiss_goal, opts->seed, &pred, &ch);
				goal_chosen(out, &ch);
			} else {
				train_core(t, train, nr_train,
					   opts->templates & PERPHECY_ALL_TEMPLATES, opts->cover,
					   opts->min_dismiss, &pred);
			}
			out->nr_predictors++;
			out->nr_trivial += pred.no_hits;
			for (size_t j = 0; j < nr_test; j++)
				predicted[test[j]] =
				    perphecy_predict(&pred, &t[test[j]].values, NULL);
		}
	}

	out->k = k;
	out->nr_commits = nr_commits;
	out->nr_bench = nr_benches;
	out->per_bench = xcalloc(nr_benches, sizeof(*out->per_bench));
	for (size_t b = 0; b < nr_benches; b++)
		out->per_bench[b].bench = (uint32_t)benches[b];
	for (size_t i = 0; i < n; i++) {
		eval_count(&out->total, t[i].hit, predicted[i]);
		eval_count(&out->per_bench[bench_of[i]].eval, t[i].hit, predicted[i]);
	}
	eval_finish(&out->total);
	for (size_t b = 0; b < nr_benches; b++)
		eval_finish(&out->per_bench[b].eval);
	out->predicted = predicted;
	predicted = NULL;
	ret = RP_OK;
out:
	free(predicted);
	free(test);
	free(train);
	free(by_group);
	free(group_start);
	free(bench_of);
	free(fold);
	free(benches);
	free(commits);
	return ret;
}

int perphecy_train_goal(const struct perphecy_tuple *t, size_t n, unsigned templates,
			enum perphecy_cover cover, double goal, uint64_t seed,
			struct perphecy_predictor *out, struct perphecy_goal_choice *choice)
{
	size_t *idx;
	int ret;

	perphecy_predictor_init(out);
	if (choice)
		memset(choice, 0, sizeof(*choice));
	ret = check_input(t, n, templates, true);
	if (!ret)
		ret = check_goal(goal, -1, true);
	if (ret)
		return ret;
	idx = all_tuples(n);
	train_goal_core(t, idx, n, templates, cover, goal, seed, out,
			choice);
	free(idx);
	return RP_OK;
}
