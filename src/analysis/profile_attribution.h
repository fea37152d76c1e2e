#ifndef REVPERF_ANALYSIS_PROFILE_ATTRIBUTION_H
#define REVPERF_ANALYSIS_PROFILE_ATTRIBUTION_H

/*
 * Absolute, noise-aware attribution (docs/attribution.md): the calling context trees of
 * the runs of two sides (any kind of profile: revperf's CCT runtime, callgrind, folded
 * stacks, sampled trees, the counted runs under valgrind) -> per function and per call
 * path, the self weight per run on each side with its spread over the runs, the change
 * with its interval, its share of the benchmark's total change, and whether the change
 * lies within the run-to-run noise. PARCS's percentage weights (analysis/cct_diff.h) stay
 * beside it; this is the same data in the trees' own unit (ns, Ir, calls, samples).
 *
 * The noise rule, with a_1..a_n the per-run values of side A (a run without the entry
 * counts 0) and b_1..b_m those of B, n, m >= 2, delta = mean(b) - mean(a), s_a and s_b
 * their sample standard deviations:
 *   noise   when the (1 - alpha) Welch t-interval of delta holds 0, that is when
 *           |delta| <= t(1 - alpha/2, df) * sqrt(s_a^2 / n + s_b^2 / m), df by
 *           Welch-Satterthwaite (the change is within what the runs' spread explains);
 *   finding otherwise; when no run varies on either side (deterministic counts), any
 *           change is a finding, exactly.
 * With one run on a side there is no spread: the entry is ATTRIBUTION_NO_SPREAD, neither
 * noise nor finding, and the report says so. (The larger within-side range, max - min,
 * was measured as a rule too and rejected: 22% false findings with 2 runs per side, and
 * blind to a 2-sd change with 10 runs or more; docs/attribution.md.)
 *
 * Usage: attribution_acc_init(), attribution_acc_add_run() once per run (the runs of A and
 * B in any order, each run one or more trees that add up: the processes of a run), then
 * attribution_acc_finish() into a struct attribution, attribution_acc_release(). Nothing
 * here is thread-safe for one accumulator; distinct ones are independent.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/cct.h"

/* Entries kept per list by default, ranked by absolute change. */
#define ATTRIBUTION_TOP 10
/* The intervals' alpha where no comparison sets one (`diff`): the verdict's default. */
#define ATTRIBUTION_ALPHA 0.01

enum attribution_class {
	ATTRIBUTION_NO_SPREAD = 0, /* fewer than 2 runs on a side: no spread to judge against */
	ATTRIBUTION_NOISE,	   /* within the run-to-run noise (the rule above) */
	ATTRIBUTION_FINDING,	   /* beyond it */
};

/* One side's per-run values of an entry. */
struct attribution_stat {
	double mean;	 /* per run */
	double sd;	 /* sample standard deviation over the runs; NAN with one run */
	double min, max; /* over the runs (0 for a run without the entry) */
	double calls;	 /* mean calls per run; NAN when the profiles have no call counts */
};

/* A function (self weight summed over its contexts), a call path (self weight), or the total. */
struct attribution_entry {
	char *key;			 /* "f", or "main;f;g#1" (outermost first); NULL: total */
	struct attribution_stat side[2]; /* A (baseline), B (target) */
	double delta;			 /* side[1].mean - side[0].mean */
	double ci_lo, ci_hi;		 /* (1 - alpha) Welch interval of delta; NAN without
					    spread; [delta, delta] when no run varies */
	double share;			 /* delta / the total's delta; NAN when that is 0 */
	enum attribution_class class;
	/* A path of counted events whose function executed the same on both sides (its entry
	 * among the functions did not change): only the function's split over its contexts
	 * moved, which callgrind's call-path estimate does when another caller's cost does. */
	bool moved;
};

struct attribution {
	enum cct_weight weight; /* of every tree added */
	char weight_event[32];
	bool calls_known; /* every tree added knows its calls */
	double alpha;	  /* of the intervals */
	size_t runs[2];
	struct attribution_entry total;	 /* the whole tree per run (key NULL) */
	struct attribution_entry *funcs; /* by |delta| descending, at most `top` */
	size_t nr_funcs;
	size_t changed_funcs, finding_funcs; /* over all functions, not only those kept */
	struct attribution_entry *paths;
	size_t nr_paths;
	size_t changed_paths, finding_paths;
	size_t moved_paths; /* changed paths marked moved (not counted as findings) */
};

/* Frees what `a` owns and zeroes it; accepts a zeroed or released attribution. */
void attribution_release(struct attribution *a);

/* Per-side sums of one function or path while runs are added (private). */
struct attribution_sums {
	double mean[2], m2[2], lo[2], hi[2], calls[2]; /* Welford's mean and M2, range, calls */
	double cur, cur_calls;			       /* in the run being added */
};

struct attribution_acc {
	struct cct keys;		/* the union of every run's contexts: path identity */
	struct attribution_sums *paths; /* by node of `keys` */
	size_t alloc_paths;
	struct attribution_sums *funcs; /* by name id of `keys` */
	size_t alloc_funcs;
	struct attribution_sums total;
	size_t runs[2];
	bool have_weight; /* a tree was added: keys' weight and calls_known are set */
	uint32_t *map;	  /* scratch: node of the run -> node of `keys` */
	size_t alloc_map;
};

void attribution_acc_init(struct attribution_acc *acc);
void attribution_acc_release(struct attribution_acc *acc);

/*
 * Adds one run of side `side` (0 = A, 1 = B): the trees[0..nr) of its processes (or one
 * tree) add up. Only exclusive weights and calls are read. Returns 0, or RP_EINPUT after
 * error() when a tree weighs something else than the trees added before (ns against Ir),
 * or the union passes CCT_MAX_NODES.
 */
int attribution_acc_add_run(struct attribution_acc *acc, int side, const struct cct *const *trees,
			    size_t nr);

/*
 * attribution_acc_add_run() whose functions and total come from funcs[0..nr_funcs) instead
 * of the trees: trees of depth 1, one node per function, as callgrind_read_renamed() gives
 * them exact where its call-path tree estimates. The call paths still come from trees.
 */
int attribution_acc_add_run_funcs(struct attribution_acc *acc, int side,
				  const struct cct *const *trees, size_t nr,
				  const struct cct *const *funcs, size_t nr_funcs);

/*
 * The attribution of the runs added (at least one per side, else RP_EINPUT after error()):
 * every function and call path whose mean changed, the `top` largest absolute changes of
 * each kept (0: all), intervals at confidence 1 - alpha (0 < alpha < 1). Fills `out`
 * (released with attribution_release()). The accumulator is left as it was (more runs may
 * be added and finished again). Returns 0 or RP_EINPUT.
 */
int attribution_acc_finish(const struct attribution_acc *acc, double alpha, size_t top,
			   struct attribution *out);

/*
 * The classification of one change by the rule above, from each side's number of runs
 * and standard deviation: fills e->ci_lo, e->ci_hi and e->class from e->side[].sd and
 * e->delta. Exposed for the tests and bench/attribution_rule_bench.c.
 */
void attribution_classify(struct attribution_entry *e, const size_t runs[2], double alpha);

/*
 * Convenience: the attribution of nr[s] single-tree runs per side (runs[s][i]), as above.
 * Returns 0 or RP_EINPUT after error().
 */
int attribution_of_runs(const struct cct *const *runs[2], const size_t nr[2], double alpha,
			size_t top, struct attribution *out);

#endif
