#include <math.h>
#include <string.h>

#include "profile/cct.h"
#include "util/common.h"

/* Sums and sums of squares per output node while the runs are added. */
struct merge_acc {
	double calls, incl, excl;
	double calls2, incl2, excl2;
};

static double sample_sd(double sum, double sum2, size_t n)
{
	if (n < 2)
		return 0.0;
	double mean = sum / (double)n;
	double var = (sum2 - (double)n * mean * mean) / (double)(n - 1);
	/* Rounding can make a zero variance slightly negative. */
	return var > 0.0 ? sqrt(var) : 0.0;
}

static void acc_add(struct merge_acc *a, const struct cct_node *n)
{
	a->calls += n->calls;
	a->incl += n->incl;
	a->excl += n->excl;
	a->calls2 += n->calls * n->calls;
	a->incl2 += n->incl * n->incl;
	a->excl2 += n->excl * n->excl;
}

/* Whether every child list of `t` is in the order of cct_sort_children(). */
static bool children_in_name_order(const struct cct *t)
{
	for (size_t i = 0; i < t->nr_nodes; i++) {
		uint32_t prev = t->nodes[i].first_child;
		if (prev == CCT_NONE)
			continue;
		for (uint32_t c = t->nodes[prev].next_sibling; c != CCT_NONE;
		     prev = c, c = t->nodes[c].next_sibling) {
			const struct cct_node *a = &t->nodes[prev], *b = &t->nodes[c];
			int d = strcmp(cct_name(t, a->name), cct_name(t, b->name));
			if (d > 0 || (!d && a->site > b->site))
				return false;
		}
	}
	return true;
}

int cct_merge(const struct cct *const *runs, size_t nr_runs, struct cct *out)
{
	struct merge_acc *acc = NULL;
	size_t alloc_acc = 0;
	uint32_t *map = NULL;
	size_t alloc_map = 0;
	int ret = RP_EINPUT;
	bool in_name_order = true;

	cct_init(out);
	if (!nr_runs) {
		error("cct merge: no profiles to merge");
		goto out;
	}
	cct_copy_weight(out, runs[0]);
	for (size_t r = 0; r < nr_runs; r++) {
		const struct cct *run = runs[r];
		if (!cct_same_weight(run, runs[0])) {
			error("cct merge: run %zu weighs %s%s, run 1 %s%s: runs of different "
			      "weights cannot be merged",
			      r + 1, cct_weight_name(run->weight), run->weight_event,
			      cct_weight_name(runs[0]->weight), runs[0]->weight_event);
			goto out;
		}
		out->calls_known = out->calls_known && run->calls_known;
		in_name_order = in_name_order && children_in_name_order(run);
		ALLOC_GROW(map, run->nr_nodes, alloc_map);
		map[CCT_ROOT] = CCT_ROOT;
		for (size_t i = 1; i < run->nr_nodes; i++) {
			const struct cct_node *n = &run->nodes[i];
			uint32_t name = cct_intern(out, cct_name(run, n->name));
			uint32_t o = cct_child(out, map[n->parent], name, n->site);
			if (o == CCT_NONE)
				goto out;
			map[i] = o;
		}
		size_t old_alloc = alloc_acc;
		ALLOC_GROW(acc, out->nr_nodes, alloc_acc);
		if (alloc_acc > old_alloc)
			memset(acc + old_alloc, 0, (alloc_acc - old_alloc) * sizeof(*acc));
		for (size_t i = 0; i < run->nr_nodes; i++)
			acc_add(&acc[map[i]], &run->nodes[i]);
	}

	out->nr_runs = nr_runs;
	out->sd = xcalloc(out->nr_nodes, sizeof(*out->sd));
	for (size_t i = 0; i < out->nr_nodes; i++) {
		struct cct_node *n = &out->nodes[i];
		const struct merge_acc *a = &acc[i];
		n->calls = a->calls / (double)nr_runs;
		n->incl = a->incl / (double)nr_runs;
		n->excl = a->excl / (double)nr_runs;
		out->sd[i].calls = sample_sd(a->calls, a->calls2, nr_runs);
		out->sd[i].incl = sample_sd(a->incl, a->incl2, nr_runs);
		out->sd[i].excl = sample_sd(a->excl, a->excl2, nr_runs);
	}
	if (in_name_order && nr_runs > 1) {
		/*
		 * Runs whose callees are in name order (sampled runs: their order of creation
		 * is chance) make a merge in name order too. The callees that only a later run
		 * has were appended above, which breaks that order and with it the child-order
		 * matching of a diff: a path of both trees reported in one tree only.
		 */
		struct cct sorted;
		cct_sort_children(out, &sorted);
		cct_release(out);
		*out = sorted;
	}
	ret = 0;
out:
	if (ret) {
		cct_release(out);
		cct_init(out);
	}
	free(map);
	free(acc);
	return ret;
}
