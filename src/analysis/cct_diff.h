#ifndef REVPERF_ANALYSIS_CCT_DIFF_H
#define REVPERF_ANALYSIS_CCT_DIFF_H

/*
 * Differencing of two calling context trees (METHODS.md section 5, PARCS): relaxed
 * common-tree matching, the three stages of topological differences driven by the
 * function-level binary diff, and weight differencing with pweight, overlap and the
 * iterative adjustment. docs/cct-diff.md explains the choices.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/cct.h"

struct bindiff;

/* A set of function names, owned (copied) by the set. */
struct cct_nameset {
	char **names;
	size_t nr, alloc;
};

/* What the binary diff says changed between the old and the new revision. */
struct cct_changes {
	struct cct_nameset added;    /* only in the new build */
	struct cct_nameset deleted;  /* only in the old build */
	struct cct_nameset modified; /* in both, body changed */
};

/* Empties `c` (a zeroed struct is also empty); release with cct_changes_release(). */
void cct_changes_init(struct cct_changes *c);
void cct_changes_release(struct cct_changes *c);
/* Adds a copy of `name` to the set. */
void cct_nameset_add(struct cct_nameset *set, const char *name);

/*
 * Fills `out` (initialised) from a binary diff: added -> added, deleted -> deleted,
 * modified -> modified; a renamed function is its old name deleted and its new name added
 * (the trees name it differently, so its contexts cannot match). Names are copied.
 */
void cct_diff_changes_from_bindiff(const struct bindiff *d, struct cct_changes *out);

enum cct_diff_stage {
	CCT_STAGE_ADDED_DELETED = 1, /* subtree rooted at an added or deleted function */
	CCT_STAGE_MODIFIED = 2,	     /* inside the subtree of a modified function */
	CCT_STAGE_SIDE_EFFECT = 3    /* anything else: side effect or non-determinism */
};

/* A topological difference: a subtree present in one tree only. */
struct cct_topo_diff {
	enum cct_diff_stage stage;
	bool in_new;	 /* the subtree is in the new tree (appeared), else the old (vanished) */
	uint32_t node;	 /* the subtree's root, in the tree named by in_new */
	uint32_t caller; /* its parent in that tree (stage 1 attributes to it) */
	double pweight;	 /* its inclusive weight, % of that tree's total */
	double calls;
	/* Stage 2: the modified functions from the node up to the highest modified dominator,
	 * nearest first: cct_diff.attr[attr_first .. attr_first + nr_attr). */
	size_t attr_first, nr_attr;
};

/* A matched pair whose weight was adjusted (reported), in adjustment order. */
struct cct_weight_pair {
	uint32_t old_node, new_node;
	double old_pweight, new_pweight; /* % of the common tree's total weight */
	double old_calls, new_calls;
};

struct cct_diff_options {
	double threshold;  /* stop adjusting at this overlap (%); <= 0 means 100 */
	size_t max_pairs;  /* at most this many adjusted pairs (K); 0 = no limit */
};

struct cct_diff {
	const struct cct *old_tree, *new_tree; /* borrowed from the caller */
	struct cct_topo_diff *topo;	       /* in old-tree order, then new-tree order */
	size_t nr_topo, alloc_topo;
	const char **attr; /* names borrowed from the tree of the entry */
	size_t nr_attr, alloc_attr;
	struct cct_weight_pair *pairs;
	size_t nr_pairs, alloc_pairs;
	size_t nr_matched;     /* matched node pairs, the root included */
	double overlap;	       /* overlap of the common trees before adjusting, in % */
	double overlap_after;  /* after the reported pairs were adjusted */
};

/*
 * Differences `old_tree` and `new_tree` (both with inclusive weights computed) using
 * `changes` (NULL: no binary diff, every difference is stage 3) and `opts` (NULL: defaults).
 * Fills `out`, which borrows both trees (keep them alive while reading it) and is released
 * with cct_diff_release(). O(n log n) in the number of nodes. Returns 0 (it cannot fail on
 * valid trees; allocation failure aborts). Not thread-safe for the same `out`.
 */
int cct_diff_compute(const struct cct *old_tree, const struct cct *new_tree,
		     const struct cct_changes *changes, const struct cct_diff_options *opts,
		     struct cct_diff *out);

/* Frees what `d` owns; accepts a zeroed or released diff. */
void cct_diff_release(struct cct_diff *d);

/*
 * The overlap (%) of two trees' common parts, e.g. of two runs of the target revision, the
 * default threshold of a diff.
 */
double cct_overlap(const struct cct *a, const struct cct *b);

/* "added/deleted", "modified", "side effect". */
const char *cct_diff_stage_name(enum cct_diff_stage stage);

#endif
