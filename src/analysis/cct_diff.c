#include "analysis/cct_diff.h"

#include <math.h>
#include <string.h>

#include "binary/bindiff.h"
#include "util/common.h"

enum name_flag {
	FLAG_ADDED_DELETED = 1,
	FLAG_MODIFIED = 2,
};

void cct_changes_init(struct cct_changes *c)
{
	memset(c, 0, sizeof(*c));
}

static void nameset_release(struct cct_nameset *set)
{
	for (size_t i = 0; i < set->nr; i++)
		free(set->names[i]);
	free(set->names);
	memset(set, 0, sizeof(*set));
}

void cct_changes_release(struct cct_changes *c)
{
	if (!c)
		return;
	nameset_release(&c->added);
	nameset_release(&c->deleted);
	nameset_release(&c->modified);
}

void cct_nameset_add(struct cct_nameset *set, const char *name)
{
	ALLOC_GROW(set->names, set->nr + 1, set->alloc);
	set->names[set->nr++] = xstrdup(name);
}

void cct_diff_changes_from_bindiff(const struct bindiff *d, struct cct_changes *out)
{
	for (size_t i = 0; i < d->nr_entries; i++) {
		const struct bindiff_entry *e = &d->entries[i];
		switch (e->cls) {
		case BINDIFF_ADDED:
			cct_nameset_add(&out->added, e->new_fn->name);
			break;
		case BINDIFF_DELETED:
			cct_nameset_add(&out->deleted, e->old_fn->name);
			break;
		case BINDIFF_MODIFIED:
			cct_nameset_add(&out->modified, e->new_fn->name);
			break;
		case BINDIFF_RENAMED:
			cct_nameset_add(&out->deleted, e->old_fn->name);
			cct_nameset_add(&out->added, e->new_fn->name);
			break;
		case BINDIFF_UNCHANGED:
		case BINDIFF_NR_CLASSES:
			break;
		}
	}
}

const char *cct_diff_stage_name(enum cct_diff_stage stage)
{
	switch (stage) {
	case CCT_STAGE_ADDED_DELETED:
		return "added/deleted";
	case CCT_STAGE_MODIFIED:
		return "modified";
	case CCT_STAGE_SIDE_EFFECT:
		return "side effect";
	}
	return "?";
}

/* Scratch space of one diff, reused across nodes. */
struct diff_ctx {
	const struct cct *old_tree, *new_tree;
	uint32_t *match_old; /* old node -> new node, or CCT_NONE */
	uint32_t *match_new; /* new node -> old node, or CCT_NONE */
	/* the longest increasing subsequence over one child list */
	uint32_t *cand_old, *cand_rank, *tails, *prev;
	size_t alloc_cand, alloc_tails, alloc_prev, alloc_rank;
};

/*
 * Matches the children of the matched pair (op, np): candidates are old children whose
 * (function, site) exists under np (one hash lookup each); the matched ones are a longest
 * subsequence whose positions in np's child list increase, i.e. the longest common
 * subsequence of the two child lists (keys are unique within a list). O(k log k).
 */
static void match_children(struct diff_ctx *c, const uint32_t *name_map, uint32_t op, uint32_t np)
{
	const struct cct *a = c->old_tree, *b = c->new_tree;
	size_t nr = 0, len = 0;

	for (uint32_t ch = a->nodes[op].first_child; ch != CCT_NONE; ch = a->nodes[ch].next_sibling) {
		uint32_t name = name_map[a->nodes[ch].name];
		if (name == CCT_NONE)
			continue;
		uint32_t m = cct_child_find(b, np, name, a->nodes[ch].site);
		if (m == CCT_NONE)
			continue;
		ALLOC_GROW(c->cand_old, nr + 1, c->alloc_cand);
		ALLOC_GROW(c->cand_rank, nr + 1, c->alloc_rank);
		c->cand_old[nr] = ch;
		c->cand_rank[nr] = b->nodes[m].rank;
		nr++;
	}
	if (!nr)
		return;
	ALLOC_GROW(c->tails, nr, c->alloc_tails);
	ALLOC_GROW(c->prev, nr, c->alloc_prev);
	for (size_t i = 0; i < nr; i++) {
		/* binary search: the first tail whose rank is >= this one */
		size_t lo = 0, hi = len;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (c->cand_rank[c->tails[mid]] < c->cand_rank[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		c->prev[i] = lo ? c->tails[lo - 1] : CCT_NONE;
		c->tails[lo] = (uint32_t)i;
		if (lo == len)
			len++;
	}
	for (uint32_t i = c->tails[len - 1]; i != CCT_NONE; i = c->prev[i]) {
		uint32_t o = c->cand_old[i];
		uint32_t n = cct_child_find(b, np, name_map[a->nodes[o].name], a->nodes[o].site);
		c->match_old[o] = n;
		c->match_new[n] = o;
	}
}

static void match_trees(struct diff_ctx *c)
{
	const struct cct *a = c->old_tree, *b = c->new_tree;
	uint32_t *name_map = xmallocarray(a->nr_names, sizeof(*name_map));

	for (size_t i = 0; i < a->nr_names; i++)
		name_map[i] = cct_name_find(b, a->names[i]);
	for (size_t i = 0; i < a->nr_nodes; i++)
		c->match_old[i] = CCT_NONE;
	for (size_t i = 0; i < b->nr_nodes; i++)
		c->match_new[i] = CCT_NONE;
	c->match_old[CCT_ROOT] = CCT_ROOT;
	c->match_new[CCT_ROOT] = CCT_ROOT;
	/* Parents precede children, so a node's match is known before its children's. */
	for (size_t i = 0; i < a->nr_nodes; i++)
		if (c->match_old[i] != CCT_NONE && a->nodes[i].first_child != CCT_NONE)
			match_children(c, name_map, (uint32_t)i, c->match_old[i]);
	free(name_map);
}

/* Flags per name id of `t`: which change set the function is in. */
static unsigned char *name_flags(const struct cct *t, const struct cct_changes *changes)
{
	unsigned char *flags = xcalloc(t->nr_names ? t->nr_names : 1, 1);
	if (!changes)
		return flags;
	const struct cct_nameset *ad[] = {&changes->added, &changes->deleted};
	for (size_t s = 0; s < ARRAY_SIZE(ad); s++)
		for (size_t i = 0; i < ad[s]->nr; i++) {
			uint32_t id = cct_name_find(t, ad[s]->names[i]);
			if (id != CCT_NONE)
				flags[id] |= FLAG_ADDED_DELETED;
		}
	for (size_t i = 0; i < changes->modified.nr; i++) {
		uint32_t id = cct_name_find(t, changes->modified.names[i]);
		if (id != CCT_NONE)
			flags[id] |= FLAG_MODIFIED;
	}
	return flags;
}

static void topo_add(struct cct_diff *d, const struct cct *t, bool in_new, uint32_t node,
		     enum cct_diff_stage stage, double weight, double total)
{
	ALLOC_GROW(d->topo, d->nr_topo + 1, d->alloc_topo);
	struct cct_topo_diff *e = &d->topo[d->nr_topo++];
	memset(e, 0, sizeof(*e));
	e->stage = stage;
	e->in_new = in_new;
	e->node = node;
	e->caller = t->nodes[node].parent;
	e->pweight = total > 0 ? 100.0 * weight / total : 0.0;
	e->calls = t->nodes[node].calls;
	e->attr_first = d->nr_attr;
}

/*
 * The three stages on one tree: stage 1 subtrees (rooted at an added or deleted function,
 * attributed to the caller) are excised first; then every unmatched subtree whose parent is
 * matched is a difference, stage 2 when a modified function is on its path (attribution: the
 * modified functions from it upwards, nearest first), stage 3 otherwise. Weights of stage 2
 * and 3 subtrees leave out the stage 1 subtrees inside them.
 */
static void classify(struct cct_diff *d, const struct cct *t, const uint32_t *match, bool in_new,
		     const struct cct_changes *changes)
{
	unsigned char *flags = name_flags(t, changes);
	bool *excised = xcalloc(t->nr_nodes, sizeof(*excised));
	uint32_t *modanc = xmallocarray(t->nr_nodes, sizeof(*modanc));
	double *kept = xmallocarray(t->nr_nodes, sizeof(*kept));
	double total = cct_total(t);

	for (size_t i = 0; i < t->nr_nodes; i++) {
		const struct cct_node *n = &t->nodes[i];
		bool parent_excised = i != CCT_ROOT && excised[n->parent];
		excised[i] = parent_excised || (flags[n->name] & FLAG_ADDED_DELETED);
		modanc[i] = i != CCT_ROOT ? modanc[n->parent] : CCT_NONE;
		if (flags[n->name] & FLAG_MODIFIED)
			modanc[i] = (uint32_t)i;
		kept[i] = excised[i] ? 0.0 : n->excl;
		if (excised[i] && !parent_excised)
			topo_add(d, t, in_new, (uint32_t)i, CCT_STAGE_ADDED_DELETED, n->incl, total);
	}
	for (size_t i = t->nr_nodes; i-- > 1;)
		kept[t->nodes[i].parent] += kept[i];
	for (size_t i = 1; i < t->nr_nodes; i++) {
		const struct cct_node *n = &t->nodes[i];
		if (excised[i] || match[i] != CCT_NONE || match[n->parent] == CCT_NONE)
			continue;
		enum cct_diff_stage stage =
		    modanc[i] != CCT_NONE ? CCT_STAGE_MODIFIED : CCT_STAGE_SIDE_EFFECT;
		topo_add(d, t, in_new, (uint32_t)i, stage, kept[i], total);
		for (uint32_t m = modanc[i]; m != CCT_NONE;
		     m = m != CCT_ROOT ? modanc[t->nodes[m].parent] : CCT_NONE) {
			ALLOC_GROW(d->attr, d->nr_attr + 1, d->alloc_attr);
			d->attr[d->nr_attr++] = cct_name(t, t->nodes[m].name);
			d->topo[d->nr_topo - 1].nr_attr++;
		}
	}
	free(kept);
	free(modanc);
	free(excised);
	free(flags);
}

struct weight_cand {
	double diff;
	uint32_t old_node;
};

static int weight_cand_cmp(const void *pa, const void *pb)
{
	const struct weight_cand *a = pa, *b = pb;
	if (a->diff != b->diff)
		return a->diff > b->diff ? -1 : 1;
	return a->old_node < b->old_node ? -1 : a->old_node > b->old_node;
}

static void weight_diff(struct cct_diff *d, const struct diff_ctx *c,
			const struct cct_diff_options *opts)
{
	const struct cct *a = c->old_tree, *b = c->new_tree;
	double total_a = 0, total_b = 0, overlap = 0;
	struct weight_cand *cand = NULL;
	size_t nr_cand = 0, alloc_cand = 0;
	double threshold = opts && opts->threshold > 0 ? opts->threshold : 100.0;
	size_t max_pairs = opts ? opts->max_pairs : 0;

	/* pweights are relative to the common trees, so excised subtrees do not shift them. */
	for (size_t i = 0; i < a->nr_nodes; i++) {
		if (c->match_old[i] == CCT_NONE)
			continue;
		d->nr_matched++;
		total_a += a->nodes[i].excl;
		total_b += b->nodes[c->match_old[i]].excl;
	}
	if (total_a <= 0 || total_b <= 0) {
		d->overlap = d->overlap_after = total_a == total_b ? 100.0 : 0.0;
		return;
	}
	for (size_t i = 0; i < a->nr_nodes; i++) {
		uint32_t m = c->match_old[i];
		if (m == CCT_NONE)
			continue;
		double pa = 100.0 * a->nodes[i].excl / total_a;
		double pb = 100.0 * b->nodes[m].excl / total_b;
		overlap += fmin(pa, pb);
		if (pa == pb)
			continue;
		ALLOC_GROW(cand, nr_cand + 1, alloc_cand);
		cand[nr_cand].diff = fabs(pa - pb);
		cand[nr_cand].old_node = (uint32_t)i;
		nr_cand++;
	}
	d->overlap = overlap;
	if (nr_cand)
		qsort(cand, nr_cand, sizeof(*cand), weight_cand_cmp);
	/* Tolerance: summing pweights of a million nodes rounds. */
	for (size_t k = 0; k < nr_cand && overlap < threshold - 1e-9; k++) {
		if (max_pairs && d->nr_pairs >= max_pairs)
			break;
		uint32_t o = cand[k].old_node, n = c->match_old[o];
		overlap += cand[k].diff;
		ALLOC_GROW(d->pairs, d->nr_pairs + 1, d->alloc_pairs);
		struct cct_weight_pair *p = &d->pairs[d->nr_pairs++];
		p->old_node = o;
		p->new_node = n;
		p->old_pweight = 100.0 * a->nodes[o].excl / total_a;
		p->new_pweight = 100.0 * b->nodes[n].excl / total_b;
		p->old_calls = a->nodes[o].calls;
		p->new_calls = b->nodes[n].calls;
	}
	d->overlap_after = fmin(overlap, 100.0);
	free(cand);
}

int cct_diff_compute(const struct cct *old_tree, const struct cct *new_tree,
		     const struct cct_changes *changes, const struct cct_diff_options *opts,
		     struct cct_diff *out)
{
	struct diff_ctx c;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	out->old_tree = c.old_tree = old_tree;
	out->new_tree = c.new_tree = new_tree;
	c.match_old = xmallocarray(old_tree->nr_nodes, sizeof(*c.match_old));
	c.match_new = xmallocarray(new_tree->nr_nodes, sizeof(*c.match_new));

	match_trees(&c);
	classify(out, old_tree, c.match_old, false, changes);
	classify(out, new_tree, c.match_new, true, changes);
	weight_diff(out, &c, opts);

	free(c.cand_old);
	free(c.cand_rank);
	free(c.tails);
	free(c.prev);
	free(c.match_new);
	free(c.match_old);
	return 0;
}

void cct_diff_release(struct cct_diff *d)
{
	if (!d)
		return;
	free(d->topo);
	free(d->attr);
	free(d->pairs);
	memset(d, 0, sizeof(*d));
}

double cct_overlap(const struct cct *a, const struct cct *b)
{
	struct cct_diff d;
	struct cct_diff_options opts = {.threshold = 100.0, .max_pairs = 1};

	cct_diff_compute(a, b, NULL, &opts, &d);
	double overlap = d.overlap;
	cct_diff_release(&d);
	return overlap;
}
