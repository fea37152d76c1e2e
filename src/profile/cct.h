#ifndef REVPERF_PROFILE_CCT_H
#define REVPERF_PROFILE_CCT_H

/*
 * A calling context tree (METHODS.md section 5): a node is (function, call-site rank) under
 * its parent, with calls, inclusive and exclusive weight (time, instructions or samples).
 * Call sites are identified by their rank among the caller's call sites to the same callee,
 * so that they compare across builds whose addresses moved.
 *
 * Nodes live in one growable array and are named by their index: node 0 is a synthetic root
 * ("[root]") whose children are the top frames. A node is always created after its parent,
 * so parent index < child index: walking the array forwards visits parents first, and
 * backwards children first. Children of a node are a singly linked list in creation order;
 * one hash table over (parent, function, site) finds a child in O(1) amortised. Function
 * names are interned per tree (an id per distinct name).
 *
 * A tree is not thread-safe; distinct trees may be used from distinct threads.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CCT_NONE UINT32_MAX
#define CCT_ROOT 0u
#define CCT_MAX_NODES (UINT32_MAX / 4u)

struct cct_node {
	uint32_t name;	       /* interned function name id, see cct_name() */
	uint32_t site;	       /* call-site rank among the parent's sites calling `name`, 0 = first */
	uint32_t parent;       /* CCT_NONE for the root */
	uint32_t first_child;  /* CCT_NONE when a leaf */
	uint32_t last_child;   /* CCT_NONE when a leaf */
	uint32_t next_sibling; /* CCT_NONE for the last child */
	uint32_t rank;	       /* position in the parent's child list, 0-based */
	uint32_t nr_children;
	double calls; /* number of calls; meaningless (0) when the tree's calls_known is false */
	double incl;  /* inclusive weight: the node and everything it called */
	double excl;  /* exclusive (self) weight */
};

/*
 * What a tree's weights measure: their unit, and for time which clock. Absolute figures
 * (analysis/profile_attribution.h) carry it; trees of different weights are never added.
 */
enum cct_weight {
	CCT_WEIGHT_UNKNOWN = 0, /* folded stacks: samples, or whatever the file counted */
	CCT_WEIGHT_ELAPSED_NS,	/* ns from a call's entry to its exit (revperf's CCT runtime):
				   time the thread waited (blocked, descheduled) included */
	CCT_WEIGHT_CPU_NS,	/* ns on a CPU (sampled profiles: the cpu-clock event) */
	CCT_WEIGHT_WAIT_NS,	/* ns off CPU (waiting), when measured: always a tree of its
				   own, never added to on-CPU time */
	CCT_WEIGHT_CALLS,	/* call counts (calls-only CCT profiles, --weight calls) */
	CCT_WEIGHT_EVENT,	/* a counted event named in weight_event (callgrind: Ir) */
};

/* Standard deviations of a merged tree's means (cct_merge()), per node. */
struct cct_sd {
	double calls, incl, excl;
};

struct cct {
	struct cct_node *nodes;
	size_t nr_nodes, alloc_nodes;
	/* Optional, parallel to nodes: set by cct_merge() only (NULL otherwise). */
	struct cct_sd *sd;
	size_t nr_runs; /* runs merged into this tree (1 for a single profile) */
	enum cct_weight weight; /* CCT_WEIGHT_UNKNOWN after cct_init(): the reader sets it */
	char weight_event[32];	/* CCT_WEIGHT_EVENT: the event's name ("Ir") */
	/* The source counts calls. False after cct_init(), and for folded stacks and sampled
	 * profiles: their calls are absent (not 0) and never shown. */
	bool calls_known;

	/* private: interned names and the hash tables */
	char **names;
	size_t nr_names, alloc_names;
	uint32_t *name_table; /* open addressing, name id + 1, 0 = empty */
	size_t name_table_size;
	uint32_t *child_table; /* open addressing, node index + 1, 0 = empty */
	size_t child_table_size;
};

/* Initialises an empty tree holding only the root. Release with cct_release(). */
void cct_init(struct cct *t);

/* Frees everything the tree owns; accepts a zeroed or released tree. */
void cct_release(struct cct *t);

/* Interns `name` (copied) and returns its id. */
uint32_t cct_intern(struct cct *t, const char *name);

/* Interns the first `len` bytes of `name` (copied). */
uint32_t cct_intern_len(struct cct *t, const char *name, size_t len);

/* The id of `name`, or CCT_NONE when the tree has no such function. */
uint32_t cct_name_find(const struct cct *t, const char *name);

/* The function name of id `name` (borrowed from the tree). */
const char *cct_name(const struct cct *t, uint32_t name);

/* The child of `parent` for (name, site), or CCT_NONE. O(1) amortised. */
uint32_t cct_child_find(const struct cct *t, uint32_t parent, uint32_t name, uint32_t site);

/*
 * The child of `parent` for (name, site), created with zero metrics (appended to the end of
 * the parent's child list) when absent. Returns CCT_NONE after error() when the tree would
 * pass CCT_MAX_NODES. Node pointers are invalidated by creation; indices stay valid.
 */
uint32_t cct_child(struct cct *t, uint32_t parent, uint32_t name, uint32_t site);

/* Sets t's weight (and event name for CCT_WEIGHT_EVENT, else ignored, may be NULL). */
void cct_set_weight(struct cct *t, enum cct_weight weight, const char *event);

/* Copies the weight, its event and calls_known from `src` to `dst`. */
void cct_copy_weight(struct cct *dst, const struct cct *src);

/* "elapsed ns", "on-CPU ns", "calls", "event " (followed by its name), "unnamed weight". */
const char *cct_weight_name(enum cct_weight w);

/* True when a and b weigh the same thing (same weight, same event): they may be added. */
bool cct_same_weight(const struct cct *a, const struct cct *b);

/* Recomputes every node's inclusive weight as its exclusive weight plus its children's. */
void cct_compute_inclusive(struct cct *t);

/* The total weight of the tree: the root's inclusive weight after cct_compute_inclusive(). */
double cct_total(const struct cct *t);

/*
 * Appends the context of `node` to sb: the function names from the top frame down to the
 * node, separated by ';' (the root itself is not named; the root's path is empty). A call
 * site rank other than 0 is shown as "name#rank".
 */
struct strbuf;
void cct_path(const struct cct *t, uint32_t node, struct strbuf *sb);

/*
 * The plain view of `in`: call sites merged (every site rank becomes 0, metrics of merged
 * nodes added, standard deviations dropped). Fills `out`, which must be uninitialised or
 * released; the caller releases it with cct_release().
 */
void cct_plain(const struct cct *in, struct cct *out);

/*
 * `in` with every child list in the order of the names (then call sites): for a tree
 * whose order of creation says nothing (samples, in the order they were taken), so that
 * the child-order matching of a diff compares like with like. Node indices change; the
 * metrics and standard deviations go with their nodes, the weight with the tree. Fills
 * `out` (uninitialised or released); the caller releases it with cct_release().
 * O(n log k).
 */
void cct_sort_children(const struct cct *in, struct cct *out);

/*
 * Merges `nr_runs` (>= 1) profiles of one revision into `out` (uninitialised or released):
 * the union of their nodes, each metric the mean over the runs (a node absent from a run
 * counts 0 there) with its sample standard deviation in out->sd (0 for one run). The runs
 * are only read; out has their weight, and calls_known when every run knows its calls;
 * when every run's child lists are in name order (sampled runs), so are out's.
 * The caller releases `out` with cct_release(). Returns 0, or RP_EINPUT after error() when
 * nr_runs is 0, the runs weigh different things, or the union is too large (out is then
 * empty).
 */
int cct_merge(const struct cct *const *runs, size_t nr_runs, struct cct *out);

#endif
