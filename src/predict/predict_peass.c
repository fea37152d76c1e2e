/*
 * PeASS's selection rules (METHODS.md section 8, docs/prediction.md), for
 * predict_revision(): a function reached at i modified or deleted, a call trace at u that
 * differs from the one at i, and paths that the user marks (select-paths).
 */
#include "predict/predict.h"
#include "predict/predict_impl.h"

#include <string.h>

#include "core/revision.h"
#include "util/common.h"

void predict_select_by_tests(struct predict_bench *pb, const struct perphecy_static *s,
			     const struct perphecy_profile *p)
{
	const struct perphecy_func_dyn *hottest = NULL;
	for (size_t k = 0; k < s->nr_funcs; k++) {
		const struct perphecy_func_dyn *f = perphecy_profile_find(p, s->funcs[k].name);
		if (!f)
			continue;
		pb->nr_reached_changed++;
		if (!hottest || f->cost > hottest->cost ||
		    (f->cost == hottest->cost && f->calls > hottest->calls))
			hottest = f;
	}
	pb->run = hottest != NULL;
	pb->reason = hottest ? PREDICT_REACHED_CHANGED : PREDICT_NOT_REACHED;
	if (hottest)
		pb->function = xstrdup(hottest->name);
}

/* The functions of `a` missing from `b` or called another number of times there: the
 * first by name goes to *first (its calls in a and b to *ca, *cb) unless *first already
 * names one before it. */
static void trace_diff(const struct perphecy_profile *a, const struct perphecy_profile *b,
		       const char **first, uint64_t *ca, uint64_t *cb)
{
	for (size_t k = 0; k < a->nr; k++) {
		const struct perphecy_func_dyn *f = &a->funcs[k];
		const struct perphecy_func_dyn *g = perphecy_profile_find(b, f->name);
		if (g && g->calls == f->calls)
			continue;
		if (!*first || strcmp(f->name, *first) < 0) {
			*first = f->name;
			*ca = f->calls;
			*cb = g ? g->calls : 0;
		}
	}
}

/* Only data of the same cost unit (the same source) compares: callgrind sees libc, the
 * CCT runtime does not. */
int predict_select_by_trace(struct predict_work *w, const struct bench_config *b, const char *sha_u,
			    const struct perphecy_profile *pi, struct predict_bench *pb)
{
	const struct perphecy_profile *pu;
	struct predict_ancestor at_u;
	const char *first = NULL;
	uint64_t ci = 0, cu = 0;
	int ret = predict_dynamic_at(w->ctx, sha_u, b, &at_u);
	if (ret)
		return ret < 0 ? ret : 0; /* no data at u: the rule cannot apply */
	if (strcmp(at_u.cost, pb->ancestor.cost)) {
		pb->trace = PREDICT_TRACE_OTHER_SOURCE;
		return 0;
	}
	if ((ret = predict_work_profile(w, at_u.profile_id, at_u.cost, b->name, &pu)))
		return ret;
	/* Reached at i only or with other calls, then reached at u only. */
	trace_diff(pi, pu, &first, &ci, &cu);
	trace_diff(pu, pi, &first, &cu, &ci);
	pb->trace = first ? PREDICT_TRACE_DIFFERS : PREDICT_TRACE_SAME;
	if (first) {
		pb->run = true;
		pb->reason = PREDICT_TRACE_CHANGED;
		pb->function = xstrdup(first);
		pb->calls_i = ci;
		pb->calls_u = cu;
	}
	return 0;
}

/* The paths that differ between the trees of i and u, once per pair. */
static int work_paths(struct predict_work *w, const char *sha_i, const char *sha_u,
		      const struct predict_work_paths **out)
{
	struct predict_work_paths *wp;
	int ret;
	for (size_t i = 0; i < w->nr_paths; i++)
		if (!strcmp(w->paths[i].sha_i, sha_i) && !strcmp(w->paths[i].sha_u, sha_u)) {
			*out = &w->paths[i];
			return 0;
		}
	if (!w->ctx->repo) {
		error("the marked paths of a benchmark need the repository to diff %.12s and "
		      "%.12s",
		      sha_i, sha_u);
		return RP_EINTERNAL;
	}
	ALLOC_GROW(w->paths, w->nr_paths + 1, w->alloc_paths);
	wp = &w->paths[w->nr_paths];
	memset(wp, 0, sizeof(*wp));
	if ((ret = repo_diff_paths(w->ctx->repo, sha_i, sha_u, &wp->paths, &wp->nr)))
		return ret;
	memcpy(wp->sha_i, sha_i, 41);
	memcpy(wp->sha_u, sha_u, 41);
	w->nr_paths++;
	*out = wp;
	return 0;
}

int predict_select_by_paths(struct predict_work *w, const struct bench_config *b, const char *sha_u,
			    struct predict_bench *pb)
{
	const struct predict_work_paths *wp;
	int ret;
	if (!b->nr_select_paths)
		return 0;
	if ((ret = work_paths(w, pb->ancestor.sha, sha_u, &wp)))
		return ret;
	for (size_t k = 0; k < wp->nr; k++) {
		const char *glob = bench_select_path_match(b, wp->paths[k]);
		if (!glob)
			continue;
		pb->run = true;
		pb->reason = PREDICT_MARKED_PATH;
		pb->path = xstrdup(wp->paths[k]);
		pb->glob = xstrdup(glob);
		break;
	}
	return 0;
}
