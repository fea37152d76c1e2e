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
		case BINDIFF_ADDED: cct_nameset_add(&out->added, e->new_fn->name); break;
		case BINDIFF_DELETED: cct_nameset_add(&out->deleted, e->old_fn->name); break;
		case BINDIFF_MODIFIED: cct_nameset_add(&out->modified, e->new_fn->name); break;
		case BINDIFF_RENAMED:
			cct_nameset_add(&out->deleted, e->old_fn->name);
			cct_nameset_add(&out->added, e->new_fn->name);
			break;
		case BINDIFF_UNCHANGED:
		case BINDIFF_NR_CLASSES: break;
		}
	}
}

const char *cct_diff_stage_name(enum cct_diff_stage stage)
{
	switch (stage) {
	case CCT_STAGE_ADDED_DELETED: return "added/deleted";
	case CCT_STAGE_MODIFIED: return "modified";
	case CCT_STAGE_SIDE_EFFECT: return "side effect";
	}
	return "?";
}

/* Child lists of the new tree up to this long are scanned, longer ones are hashed. */
#define SCAN_MAX 16

/* Scratch space of one diff, reused across nodes. */
struct diff_ctx {
	const struct cct *old_tree, *new_tree;
	uint32_t *match_old; /* old node -> new node, or CCT_NONE */
	uint32_t *match_new; /* new node -> old node, or CCT_NONE */
	uint32_t *name_map;  /* old name id -> new name id, or CCT_NONE */
	size_t nr_matched;
	double total_a, total_b; /* exclusive weights of the matched nodes, old and new */
	/* candidates of one child list and their longest increasing subsequence */
	uint32_t *cand_old, *cand_new, *cand_rank, *tails, *prev;
	size_t alloc_cand;
};

static uint64_t child_key(uint32_t name, uint32_t site)
{
	return (uint64_t)name << 32 | site;
}

/*
 * The candidates of the matched pair (op, np): the old children whose (function, site)
 * exists under np, in old order, with their match and its rank in np's child list. A short
 * new child list is copied into a small array and scanned (no cache miss per child); a long
 * one is looked up in the tree's hash table. Returns the number of candidates.
 */
static size_t child_candidates(struct diff_ctx *c, uint32_t op, uint32_t np)
{
	const struct cct *a = c->old_tree, *b = c->new_tree;
	const struct cct_node *an = a->nodes, *bn = b->nodes;
	uint64_t keys[SCAN_MAX];
	uint32_t idx[SCAN_MAX];
	size_t nr = 0, nr_new = 0;
	bool scan = bn[np].nr_children <= SCAN_MAX;

	if (!bn[np].nr_children)
		return 0;
	if (scan)
		for (uint32_t ch = bn[np].first_child; ch != CCT_NONE && nr_new < SCAN_MAX;
		     ch = bn[ch].next_sibling) {
			keys[nr_new] = child_key(bn[ch].name, bn[ch].site);
			idx[nr_new++] = ch;
		}
	if (an[op].nr_children > c->alloc_cand) {
		c->alloc_cand = an[op].nr_children;
		c->cand_old = xrealloc(c->cand_old, c->alloc_cand * sizeof(*c->cand_old));
		c->cand_new = xrealloc(c->cand_new, c->alloc_cand * sizeof(*c->cand_new));
		c->cand_rank = xrealloc(c->cand_rank, c->alloc_cand * sizeof(*c->cand_rank));
		c->tails = xrealloc(c->tails, c->alloc_cand * sizeof(*c->tails));
		c->prev = xrealloc(c->prev, c->alloc_cand * sizeof(*c->prev));
	}
	for (uint32_t ch = an[op].first_child; ch != CCT_NONE && nr < c->alloc_cand;
	     ch = an[ch].next_sibling) {
		uint32_t name = c->name_map[an[ch].name], m = CCT_NONE, rank = 0;
		if (name == CCT_NONE)
			continue;
		if (scan) {
			uint64_t key = child_key(name, an[ch].site);
			for (size_t j = 0; j < nr_new; j++)
				if (keys[j] == key) {
					m = idx[j];
					rank = (uint32_t)j; /* list position is the rank */
					break;
				}
		} else {
			m = cct_child_find(b, np, name, an[ch].site);
			if (m != CCT_NONE)
				rank = bn[m].rank;
		}
		if (m == CCT_NONE)
			continue;
		c->cand_old[nr] = ch;
		c->cand_new[nr] = m;
		c->cand_rank[nr] = rank;
		nr++;
	}
	return nr;
}

static void match_pair(struct diff_ctx *c, uint32_t o, uint32_t n)
{
	c->match_old[o] = n;
	c->match_new[n] = o;
}

/*
 * Matches the children of the matched pair (op, np): the matched ones are a longest
 * subsequence of the candidates whose positions in np's child list increase, i.e. the
 * longest common subsequence of the two child lists (keys are unique within a list).
 * O(k log k); O(k) when the order did not change, the common case.
 */
static void match_children(struct diff_ctx *c, uint32_t op, uint32_t np)
{
	size_t nr = child_candidates(c, op, np), len = 0, i;

	for (i = 1; i < nr && c->cand_rank[i - 1] < c->cand_rank[i]; i++)
		;
	if (i >= nr) {
		/* already increasing: the longest subsequence is all of them */
		for (i = 0; i < nr; i++)
			match_pair(c, c->cand_old[i], c->cand_new[i]);
		return;
	}
	for (i = 0; i < nr; i++) {
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
	for (uint32_t k = c->tails[len - 1]; k != CCT_NONE; k = c->prev[k])
		match_pair(c, c->cand_old[k], c->cand_new[k]);
}

static void match_trees(struct diff_ctx *c)
{
	const struct cct *a = c->old_tree, *b = c->new_tree;

	c->name_map = xmallocarray(a->nr_names ? a->nr_names : 1, sizeof(*c->name_map));
	for (size_t i = 0; i < a->nr_names; i++)
		c->name_map[i] = cct_name_find(b, a->names[i]);
	/* all bits set: CCT_NONE */
	memset(c->match_old, 0xff, a->nr_nodes * sizeof(*c->match_old));
	memset(c->match_new, 0xff, b->nr_nodes * sizeof(*c->match_new));
	match_pair(c, CCT_ROOT, CCT_ROOT);
	/*
	 * Parents precede children, so a node's match is known before its children's. The
	 * common trees' totals are summed on the way, in node order.
	 */
	for (size_t i = 0; i < a->nr_nodes; i++) {
		uint32_t m = c->match_old[i];
		if (m == CCT_NONE)
			continue;
		c->nr_matched++;
		c->total_a += a->nodes[i].excl;
		c->total_b += b->nodes[m].excl;
		if (a->nodes[i].first_child != CCT_NONE)
			match_children(c, (uint32_t)i, m);
	}
	free(c->name_map);
	c->name_map = NULL;
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
	uint32_t *roots = NULL;
	size_t nr_roots = 0, alloc_roots = 0;
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
			topo_add(d, t, in_new, (uint32_t)i, CCT_STAGE_ADDED_DELETED, n->incl,
				 total);
	}
	/* Backwards, children first: also finds the stage 2 and 3 roots, in reverse order. */
	for (size_t i = t->nr_nodes; i-- > 1;) {
		uint32_t p = t->nodes[i].parent;
		kept[p] += kept[i];
		if (!excised[i] && match[i] == CCT_NONE && match[p] != CCT_NONE) {
			ALLOC_GROW(roots, nr_roots + 1, alloc_roots);
			roots[nr_roots++] = (uint32_t)i;
		}
	}
	while (nr_roots) {
		uint32_t i = roots[--nr_roots];
		enum cct_diff_stage stage =
		    modanc[i] != CCT_NONE ? CCT_STAGE_MODIFIED : CCT_STAGE_SIDE_EFFECT;
		topo_add(d, t, in_new, i, stage, kept[i], total);
		for (uint32_t m = modanc[i]; m != CCT_NONE;
		     m = m != CCT_ROOT ? modanc[t->nodes[m].parent] : CCT_NONE) {
			ALLOC_GROW(d->attr, d->nr_attr + 1, d->alloc_attr);
			d->attr[d->nr_attr++] = cct_name(t, t->nodes[m].name);
			d->topo[d->nr_topo - 1].nr_attr++;
		}
	}
	free(roots);
	free(kept);
	free(modanc);
	free(excised);
	free(flags);
}

/*
 * A matched pair whose pweights differ. `diff` is |pweight difference| >= 0 as its IEEE
 * bits: for non-negative doubles the bits order like the values, so comparisons are
 * integer ones (and a NaN, from absurd input only, sorts first instead of breaking the
 * order).
 */
struct weight_cand {
	uint64_t diff;
	uint32_t old_node;
};

/* Report order: larger difference first, ties in old node order. A strict total order. */
static bool cand_before(const struct weight_cand *a, const struct weight_cand *b)
{
	return a->diff != b->diff ? a->diff > b->diff : a->old_node < b->old_node;
}

static int weight_cand_cmp(const void *pa, const void *pb)
{
	const struct weight_cand *a = pa, *b = pb;
	return cand_before(a, b) ? -1 : cand_before(b, a);
}

static void cand_swap(struct weight_cand *a, struct weight_cand *b)
{
	struct weight_cand t = *a;
	*a = *b;
	*b = t;
}

/*
 * Reorders v[0..n) so that v[0..want) are the `want` first in report order (in any order
 * among themselves): quickselect, O(n) expected, with a full sort when the partitions keep
 * coming out lopsided (bounded O(n log n)).
 */
static void cand_select(struct weight_cand *v, size_t n, size_t want)
{
	size_t lo = 0, hi = n; /* [0, lo) <= [lo, hi) <= [hi, n), lo <= want <= hi */
	unsigned budget = 64;

	while (hi - lo > 16 && want > lo && want < hi) {
		if (!budget--) {
			qsort(v + lo, hi - lo, sizeof(*v), weight_cand_cmp);
			return;
		}
		/* median of three; the ends then stop both scans */
		size_t mid = lo + (hi - lo) / 2;
		if (cand_before(&v[mid], &v[lo]))
			cand_swap(&v[mid], &v[lo]);
		if (cand_before(&v[hi - 1], &v[mid])) {
			cand_swap(&v[hi - 1], &v[mid]);
			if (cand_before(&v[mid], &v[lo]))
				cand_swap(&v[mid], &v[lo]);
		}
		struct weight_cand pivot = v[mid];
		size_t i = lo, j = hi - 1;
		/* Hoare: afterwards [lo, j] <= pivot <= [j + 1, hi), both parts non-empty */
		for (;;) {
			while (cand_before(&v[i], &pivot))
				i++;
			while (cand_before(&pivot, &v[j]))
				j--;
			if (i >= j)
				break;
			cand_swap(&v[i++], &v[j--]);
		}
		if (want <= j + 1)
			hi = j + 1;
		else
			lo = j + 1;
	}
	if (want > lo && want < hi)
		qsort(v + lo, hi - lo, sizeof(*v), weight_cand_cmp);
}

static double cand_diff(const struct weight_cand *c)
{
	double d;
	memcpy(&d, &c->diff, sizeof(d));
	return d;
}

/* K up to this is kept in a heap while scanning; a larger K or none sorts chunks. */
#define HEAP_MAX_PAIRS 4096

/*
 * Offers x to the first `k` candidates in report order kept in heap h[0..*nr): a heap whose
 * root is the last of them, so that most candidates are rejected by one comparison.
 */
static void heap_offer(struct weight_cand *h, size_t *nr, size_t k, struct weight_cand x)
{
	size_t i;

	if (*nr < k) {
		for (i = (*nr)++; i && cand_before(&h[(i - 1) / 2], &x); i = (i - 1) / 2)
			h[i] = h[(i - 1) / 2];
		h[i] = x;
		return;
	}
	if (!cand_before(&x, &h[0]))
		return;
	for (i = 0;;) {
		size_t child = 2 * i + 1;
		if (child >= *nr)
			break;
		if (child + 1 < *nr && cand_before(&h[child], &h[child + 1]))
			child++;
		if (!cand_before(&x, &h[child]))
			break;
		h[i] = h[child];
		i = child;
	}
	h[i] = x;
}

/* Reports the pair of candidate `cand` and raises the overlap by its difference. */
static void pair_add(struct cct_diff *d, const struct diff_ctx *c, const struct weight_cand *cand,
		     double *overlap)
{
	const struct cct *a = c->old_tree, *b = c->new_tree;
	uint32_t o = cand->old_node, n = c->match_old[o];

	*overlap += cand_diff(cand);
	ALLOC_GROW(d->pairs, d->nr_pairs + 1, d->alloc_pairs);
	struct cct_weight_pair *p = &d->pairs[d->nr_pairs++];
	p->old_node = o;
	p->new_node = n;
	p->old_pweight = 100.0 * a->nodes[o].excl / c->total_a;
	p->new_pweight = 100.0 * b->nodes[n].excl / c->total_b;
	p->old_calls = a->nodes[o].calls;
	p->new_calls = b->nodes[n].calls;
}

static void weight_diff(struct cct_diff *d, const struct diff_ctx *c,
			const struct cct_diff_options *opts)
{
	const struct cct *a = c->old_tree, *b = c->new_tree;
	double total_a = c->total_a, total_b = c->total_b, overlap = 0;
	double threshold = opts && opts->threshold > 0 ? opts->threshold : 100.0;
	size_t max_pairs = opts ? opts->max_pairs : 0;
	/* Only the head of the report order is used: K pairs, or until the threshold. */
	bool heap = max_pairs && max_pairs <= HEAP_MAX_PAIRS;
	struct weight_cand *cand;
	size_t nr_cand = 0;

	/* pweights are relative to the common trees, so excised subtrees do not shift them. */
	d->nr_matched = c->nr_matched;
	if (total_a <= 0 || total_b <= 0) {
		d->overlap = d->overlap_after = total_a == total_b ? 100.0 : 0.0;
		return;
	}
	cand = xmallocarray(heap ? max_pairs : c->nr_matched, sizeof(*cand));
	for (size_t i = 0; i < a->nr_nodes; i++) {
		uint32_t m = c->match_old[i];
		if (m == CCT_NONE)
			continue;
		double pa = 100.0 * a->nodes[i].excl / total_a;
		double pb = 100.0 * b->nodes[m].excl / total_b;
		overlap += fmin(pa, pb);
		if (pa == pb)
			continue;
		struct weight_cand x = {.old_node = (uint32_t)i};
		double diff = fabs(pa - pb);
		memcpy(&x.diff, &diff, sizeof(diff));
		if (heap)
			heap_offer(cand, &nr_cand, max_pairs, x);
		else
			cand[nr_cand++] = x;
	}
	d->overlap = overlap;
	/*
	 * The heap holds the first K: sort them. Otherwise select and sort a chunk at a time,
	 * K at once when K is set, else growing chunks until the threshold stops it.
	 */
	size_t limit = max_pairs && max_pairs < nr_cand ? max_pairs : nr_cand;
	size_t chunk = max_pairs ? limit : 1024;
	/* Tolerance: summing pweights of a million nodes rounds. */
	for (size_t done = 0; done < limit && overlap < threshold - 1e-9;) {
		size_t end = limit - done <= chunk ? limit : done + chunk;
		if (end < nr_cand)
			cand_select(cand + done, nr_cand - done, end - done);
		qsort(cand + done, end - done, sizeof(*cand), weight_cand_cmp);
		for (size_t k = done; k < end && overlap < threshold - 1e-9; k++)
			pair_add(d, c, &cand[k], &overlap);
		done = end;
		chunk = chunk < SIZE_MAX / 4 ? chunk * 4 : SIZE_MAX;
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
	free(c.cand_new);
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
