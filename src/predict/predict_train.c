/* Training tuples from stored verdicts, Algorithm 1, stored predictors (predict.h). */
#include "predict/predict.h"
#include "predict/predict_impl.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "store/store_dynamic.h"
#include "util/common.h"
#include "util/json_real.h"

/* ---- training ---- */

void predict_train_opts_init(struct predict_train_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->k = 10;
	o->seed = 1;
	o->save = true;
	o->templates = PERPHECY_PAPER_TEMPLATES;
	o->min_dismiss = -1;
	o->dismiss_goal = -1;
}

void predict_training_release(struct predict_training *t)
{
	if (!t)
		return;
	free(t->tuples);
	free(t->sources);
	for (size_t i = 0; i < t->nr_bench; i++)
		free(t->bench_names[i]);
	free(t->bench_names);
	free(t->per_bench);
	free(t->goal_bench);
	perphecy_cv_result_release(&t->cv_common);
	perphecy_cv_result_release(&t->cv_bench);
	memset(t, 0, sizeof(*t));
}

/* Labelled verdicts by (target, benchmark name, command), the latest comparison first. */
static int cmp_labelled(const void *a, const void *b)
{
	const struct store_labelled *x = *(const struct store_labelled *const *)a;
	const struct store_labelled *y = *(const struct store_labelled *const *)b;
	int c = strcmp(x->target_sha, y->target_sha);
	if (!c)
		c = strcmp(x->bench_name, y->bench_name);
	if (!c)
		c = strcmp(x->bench_command, y->bench_command);
	if (!c)
		c = x->comparison_id < y->comparison_id ? 1 : x->comparison_id > y->comparison_id;
	return c;
}

static int cmp_sha(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* Whether labelled verdict l can label (u, i, b): its base is u's first parent or i. */
static int eligible(struct predict_ctx *ctx, const struct store_labelled *l,
		    const struct predict_ancestor *a)
{
	char parent[41];
	int ret;
	if (!strcmp(l->base_sha, a->sha))
		return 1;
	ret = predict_first_parent(ctx, l->target_sha, parent);
	if (ret < 0)
		return ret;
	return ret == 0 && !strcmp(parent, l->base_sha);
}

static size_t bench_index(struct predict_training *t, const char *name)
{
	size_t j;
	for (j = 0; j < t->nr_bench; j++)
		if (!strcmp(t->bench_names[j], name))
			return j;
	t->bench_names = xrealloc(t->bench_names, (t->nr_bench + 1) * sizeof(*t->bench_names));
	t->bench_names[t->nr_bench] = xstrdup(name);
	return t->nr_bench++;
}

/*
 * One group of labelled verdicts of the same (u, b), latest first: the first eligible one
 * labels the tuple; earlier ones are superseded.
 */
static int collect_group(struct predict_work *w, struct predict_training *t,
			 const struct store_labelled *const *g, size_t n)
{
	const struct bench_config *b = NULL;
	struct predict_ancestor a;
	const struct perphecy_static *s;
	const struct perphecy_profile *p;
	struct perphecy_tuple *tu;
	size_t k;
	int ret;

	struct bench_config test;
	for (k = 0; k < w->ctx->cfg->nr_benches; k++) {
		const struct bench_config *c = &w->ctx->cfg->benches[k];
		if (c->command && !strcmp(c->name, g[0]->bench_name) &&
		    !strcmp(c->command, g[0]->bench_command))
			b = c;
		else if (c->tests &&
			 predict_suite_test(c, g[0]->bench_name, g[0]->bench_command, &test))
			b = &test;
	}
	if (!b) {
		t->nr_unconfigured += n;
		return 0;
	}
	ret = predict_ancestor_lookup(w->ctx, g[0]->target_sha, b, &a, true);
	if (ret == RP_EINPUT) { /* a commit no longer in the repository */
		t->nr_no_ancestor += n;
		return 0;
	}
	if (ret < 0)
		return ret;
	if (ret == 1) {
		t->nr_no_ancestor += n;
		return 0;
	}
	for (k = 0; k < n; k++) {
		if ((ret = eligible(w->ctx, g[k], &a)) < 0)
			return ret;
		if (ret)
			break;
		t->nr_not_parent++;
	}
	if (k == n)
		return 0;
	t->nr_superseded += n - k - 1;
	if (g[k]->label == STORE_LABEL_UNDECIDED) {
		t->nr_undecided++;
		return 0;
	}
	if ((ret = predict_work_data(w, b, g[k]->target_sha, &a, &s, &p)))
		return ret;
	ALLOC_GROW(t->tuples, t->nr_tuples + 1, t->alloc_tuples);
	t->sources = xrealloc(t->sources, t->alloc_tuples * sizeof(*t->sources));
	tu = &t->tuples[t->nr_tuples];
	memset(tu, 0, sizeof(*tu));
	perphecy_compute(s, p, &tu->values);
	tu->hit = g[k]->label == STORE_LABEL_HIT;
	tu->bench = (uint32_t)bench_index(t, b->name);
	memcpy(t->sources[t->nr_tuples].commit, g[k]->target_sha, 41);
	memcpy(t->sources[t->nr_tuples].ancestor, a.sha, 41);
	t->sources[t->nr_tuples].comparison_id = g[k]->comparison_id;
	t->nr_tuples++;
	if (tu->hit)
		t->nr_hits++;
	else
		t->nr_misses++;
	return 0;
}

static int collect_tuples(struct predict_ctx *ctx, struct predict_training *t)
{
	struct store_labelled *l = NULL;
	const struct store_labelled **group = NULL, **order = NULL;
	size_t nr = 0, i, j;
	char(*commits)[41] = NULL;
	struct predict_work w;
	int ret;

	memset(&w, 0, sizeof(w));
	w.ctx = ctx;
	if ((ret = store_labelled_verdicts(
		 ctx->st, ctx->cfg->build_command ? ctx->cfg->build_command : "", &l, &nr)))
		return ret;
	order = xcalloc(nr + 1, sizeof(*order));
	group = xcalloc(nr + 1, sizeof(*group));
	for (i = 0; i < nr; i++)
		order[i] = &l[i];
	if (nr)
		qsort(order, nr, sizeof(*order), cmp_labelled);
	for (i = 0; i < nr; i = j) {
		size_t n = 0;
		for (j = i; j < nr && !strcmp(order[j]->target_sha, order[i]->target_sha) &&
			    !strcmp(order[j]->bench_name, order[i]->bench_name) &&
			    !strcmp(order[j]->bench_command, order[i]->bench_command);
		     j++)
			group[n++] = order[j];
		if ((ret = collect_group(&w, t, group, n)))
			goto out;
	}
	/* Commit keys for the folds: the index of u among the distinct commits, sorted. */
	commits = xcalloc(t->nr_tuples + 1, sizeof(*commits));
	for (i = 0; i < t->nr_tuples; i++)
		memcpy(commits[i], t->sources[i].commit, 41);
	if (t->nr_tuples)
		qsort(commits, t->nr_tuples, sizeof(*commits), cmp_sha);
	for (i = 0, j = 0; i < t->nr_tuples; i++)
		if (!j || strcmp(commits[j - 1], commits[i]))
			memcpy(commits[j++], commits[i], 41);
	t->nr_commits = j;
	for (i = 0; i < t->nr_tuples; i++) {
		char(*hit)[41] =
		    bsearch(t->sources[i].commit, commits, j, sizeof(*commits), cmp_sha);
		t->tuples[i].commit = (uint64_t)(hit - commits);
	}
out:
	free(commits);
	free(order);
	free(group);
	store_labelled_free(l, nr);
	predict_work_release(&w);
	return ret;
}

char *predict_tuples_json(const struct predict_training *t, long bench)
{
	json_t *a = json_array();
	char *text;
	for (size_t i = 0; i < t->nr_tuples; i++) {
		const struct perphecy_tuple *tu = &t->tuples[i];
		json_t *values;
		if (bench >= 0 && tu->bench != (uint32_t)bench)
			continue;
		values = json_object();
		/* null: the indicator could not be computed */
		for (int k = 0; k < PERPHECY_NR_TEMPLATES; k++)
			json_object_set_new(values, perphecy_template_id((enum perphecy_template)k),
					    json_real_or_null(tu->values.v[k]));
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:I, s:b, s:o}", "commit",
						   t->sources[i].commit, "ancestor",
						   t->sources[i].ancestor, "bench",
						   t->bench_names[tu->bench], "comparison",
						   (json_int_t)t->sources[i].comparison_id, "hit",
						   tu->hit, "values", values));
	}
	text = json_dumps(a, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(a);
	return text ? text : xstrdup("[]");
}

/* The tuples of benchmark j, copied. */
static struct perphecy_tuple *bench_tuples(const struct predict_training *t, size_t j, size_t *n)
{
	struct perphecy_tuple *sub = xcalloc(t->nr_tuples + 1, sizeof(*sub));
	*n = 0;
	for (size_t i = 0; i < t->nr_tuples; i++)
		if (t->tuples[i].bench == j)
			sub[(*n)++] = t->tuples[i];
	return sub;
}

static int save_predictors(struct predict_ctx *ctx, const struct predict_training *t)
{
	struct store_predictor *rows = xcalloc(t->nr_bench + 1, sizeof(*rows));
	size_t n = 0, j;
	int ret;
	rows[n].scope = xstrdup("common");
	rows[n].model = perphecy_predictor_to_json(&t->common);
	rows[n].tuples = predict_tuples_json(t, -1);
	rows[n].nr_tuples = t->nr_tuples;
	rows[n++].nr_hits = t->nr_hits;
	for (j = 0; j < t->nr_bench; j++) {
		rows[n].scope = xstrdup(t->bench_names[j]);
		rows[n].model = perphecy_predictor_to_json(&t->per_bench[j]);
		rows[n].tuples = predict_tuples_json(t, (long)j);
		rows[n].nr_tuples = t->per_bench[j].nr_hits + t->per_bench[j].nr_misses;
		rows[n++].nr_hits = t->per_bench[j].nr_hits;
	}
	ret = store_predictors_replace(ctx->st, rows, n);
	store_predictors_free(rows, n);
	return ret;
}

/*
 * One predictor on t[0..n): with the dismiss goal's budget (its inner folds dealt with the
 * fold seed) when there is a goal, else with the budget given (or none).
 */
static int train_one(const struct predict_train_opts *o, const struct perphecy_tuple *t, size_t n,
		     struct perphecy_predictor *out, struct perphecy_goal_choice *choice)
{
	if (o->dismiss_goal >= 0)
		return perphecy_train_goal(t, n, o->templates, o->cover, o->dismiss_goal, o->seed,
					   out, choice);
	return perphecy_train_budget(t, n, o->templates, o->cover, o->min_dismiss, out);
}

int predict_train(struct predict_ctx *ctx, const struct predict_train_opts *o,
		  struct predict_training *out)
{
	int ret;
	memset(out, 0, sizeof(*out));
	perphecy_predictor_init(&out->common);
	if ((ret = collect_tuples(ctx, out)))
		return ret;
	if (!out->nr_tuples) {
		error("no training data: no stored comparison of a commit with its parent has a "
		      "decided verdict on a benchmark with dynamic data at an ancestor "
		      "(%zu undecided, %zu without dynamic data at an ancestor, %zu not against "
		      "the parent); run `revperf run --dynamic REV` and `revperf compare REV~1 "
		      "REV` on a few commits first",
		      out->nr_undecided, out->nr_no_ancestor, out->nr_not_parent);
		return RP_EINPUT;
	}
	out->cover = o->cover;
	out->templates = o->templates;
	out->min_dismiss = o->min_dismiss;
	out->dismiss_goal = o->dismiss_goal;
	if ((ret = train_one(o, out->tuples, out->nr_tuples, &out->common, &out->goal_common)))
		return ret;
	perphecy_evaluate(&out->common, out->tuples, out->nr_tuples, &out->full);
	out->per_bench = xcalloc(out->nr_bench + 1, sizeof(*out->per_bench));
	out->goal_bench = xcalloc(out->nr_bench + 1, sizeof(*out->goal_bench));
	for (size_t j = 0; j < out->nr_bench; j++) {
		size_t n;
		struct perphecy_tuple *sub = bench_tuples(out, j, &n);
		ret = train_one(o, sub, n, &out->per_bench[j], &out->goal_bench[j]);
		free(sub);
		if (ret)
			return ret;
	}
	if (o->evaluate) {
		struct perphecy_cv_opts cv;
		perphecy_cv_opts_init(&cv);
		cv.k = o->k;
		cv.seed = o->seed;
		cv.cover = o->cover;
		cv.templates = o->templates;
		cv.min_dismiss = o->min_dismiss;
		cv.dismiss_goal = o->dismiss_goal;
		if (out->nr_commits < 2) {
			error("cannot cross-validate: the training data has 1 commit; it needs at "
			      "least 2 (left out: %zu undecided, %zu without dynamic data at an "
			      "ancestor, %zu not against the parent): run `revperf run --dynamic "
			      "REV` on an ancestor and `revperf compare REV~1 REV` on more commits",
			      out->nr_undecided, out->nr_no_ancestor, out->nr_not_parent);
			return RP_EINPUT;
		}
		if ((ret = perphecy_cross_validate(out->tuples, out->nr_tuples, &cv,
						   &out->cv_common)))
			return ret;
		cv.scope = PERPHECY_PER_BENCH;
		if ((ret =
			 perphecy_cross_validate(out->tuples, out->nr_tuples, &cv, &out->cv_bench)))
			return ret;
		out->evaluated = true;
	}
	if (o->save && (ret = save_predictors(ctx, out)))
		return ret;
	return 0;
}
