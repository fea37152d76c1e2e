#ifndef REVPERF_PREDICT_PREDICT_H
#define REVPERF_PREDICT_PREDICT_H

/*
 * Which benchmarks does a commit need (METHODS.md sections 7 and 8, docs/prediction.md)?
 * The integration of the Perphecy analysis (analysis/perphecy.h) with the project:
 * - dynamic data: one run of a benchmark per (commit, benchmark), its calls and
 *   instructions per function from callgrind, or calls and self time from the CCT
 *   runtime, stored (`revperf run --dynamic`; predict_dynamic.c);
 * - i, the closest first-parent ancestor of a commit u with dynamic data of b, and the
 *   static data of (i, u): the binary diff of the program b runs, built at i and at u;
 * - training tuples (u, i, b) labelled by stored verdicts, Algorithm 1, predictors stored
 *   with their tuples (`revperf train`);
 * - predictions for a commit (`revperf predict`, `--select`): Perphecy's predictor, or
 *   PeASS's rules (section 8): run b when a function it reached at i changed or its call
 *   trace at u differs; in both, a path the user marks (select-paths) always selects.
 * Not thread-safe; one context per thread.
 */
#include "analysis/perphecy.h"
#include "core/build.h"
#include "core/config.h"
#include "core/revision.h"
#include "store/store.h"
#include "util/common.h"

/* What the predictor's commands share. Set up with predict_ctx_init(). */
struct predict_ctx {
	struct config *cfg; /* finished (config_finish); test suites expanded */
	struct store *st;
	struct repo *repo;
	const struct state_dir *sd;
	unsigned max_ancestors; /* first-parent ancestors searched for dynamic data (1000) */
	bool use_cache;		/* keep the static data of (i, u) in .revperf/predict/ (true) */
	bool quiet;		/* no progress line on stderr for each callgrind run */
	/* private */
	struct predict_shas *shas; /* per benchmark: the commits with dynamic data */
	size_t nr_shas, alloc_shas;
};

/* Borrows every pointer; release with predict_ctx_release(). */
void predict_ctx_init(struct predict_ctx *ctx, struct config *cfg, struct store *st,
		      struct repo *repo, const struct state_dir *sd);
void predict_ctx_release(struct predict_ctx *ctx);

/*
 * What the commands predict, train and run work in: the project they opened (repository,
 * state directory and store, borrowed), its configuration (revperf.ini at the repository's
 * root, or config_path) with only the benchmarks `bench` names (NULL: all), finished, and
 * a context over them. Returns 0, or RP_EINPUT / RP_EINTERNAL after an error (a bad
 * configuration, no benchmark). Close with predict_session_close(), also after a failure;
 * it releases what the session owns, not the project.
 */
struct predict_session {
	struct repo *repo;	     /* borrowed */
	const struct state_dir *sd; /* borrowed */
	struct store *st;	     /* borrowed */
	struct config cfg;
	struct predict_ctx ctx;
};
int predict_session_open(struct predict_session *s, struct repo *repo, const struct state_dir *sd,
			 struct store *st, const char *config_path, const char *bench);
void predict_session_close(struct predict_session *s);

/*
 * Replaces every test suite of ctx->cfg (a benchmark with `tests`) by its tests, listed by
 * running the suite's `tests` command in `worktree` (output in sd->logs). Returns 0, or
 * RP_EINPUT after an error naming the suite (the command failed, listed nothing, or a
 * name that cannot be a benchmark name), RP_EINTERNAL.
 */
int predict_expand_suites(struct predict_ctx *ctx, const char *worktree, const char *label);

/*
 * The program benchmark b runs, in `worktree`: b->binary, else the first word of its
 * command, which must be a path relative to the worktree (./build/prog). Appends it to
 * `out`. Returns 0, or RP_EINPUT after an error saying to set `binary = PATH`.
 */
int predict_bench_binary(const struct bench_config *b, const char *worktree, struct strbuf *out);

/* True when valgrind is on PATH. */
bool predict_have_valgrind(void);

/* Where dynamic data comes from (`revperf run --dynamic[=SOURCE]`). */
enum predict_dynamic_source {
	PREDICT_DYNAMIC_AUTO = 0,  /* callgrind when valgrind is on PATH, else cct */
	PREDICT_DYNAMIC_CALLGRIND, /* calls and instructions under valgrind's callgrind */
	PREDICT_DYNAMIC_CCT,	   /* calls and self time from the CCT runtime */
};

/* "auto", "callgrind" or "cct" to a source; returns 0, or -1 (no message). */
int predict_dynamic_source_parse(const char *s, enum predict_dynamic_source *out);

/*
 * The source to use for `want`: itself, or for AUTO callgrind when valgrind is on PATH,
 * else cct when cfg has a [build] profile-command. Returns 0 (sets *out), or RP_EINPUT
 * after an error saying what to install or configure: valgrind missing for callgrind, no
 * profile-command for cct, neither for AUTO.
 */
int predict_dynamic_choose(const struct config *cfg, enum predict_dynamic_source want,
			   enum predict_dynamic_source *out);

/* What one dynamic-data run did. */
struct predict_dynamic {
	const char *source;	      /* "callgrind" or "cct" (static) */
	enum perphecy_cost cost_unit; /* instructions (callgrind) or self ns (cct) */
	size_t nr_functions;	      /* reached functions stored */
	uint64_t cost;		      /* their exclusive cost, summed */
	uint64_t calls;		      /* their calls, summed */
	char *path;		      /* directory of the profile files (caller frees) */
	double elapsed_s;
};

/*
 * Runs benchmark b once under valgrind's callgrind in build->worktree (the build of rev)
 * and stores its calls and instructions per function as the dynamic data of (build, b),
 * replacing earlier data. Files under sd->root/dynamic/<sha12>/<bench>/. Returns 0 (fills
 * *out; free out->path), RP_EINPUT after an error (valgrind missing, the benchmark failed
 * under callgrind: its log is named, no function data), RP_EINTERRUPT, RP_EINTERNAL.
 */
int predict_collect_dynamic(struct predict_ctx *ctx, const struct revision *rev,
			    const struct store_build *build, const struct bench_config *b,
			    struct predict_dynamic *out);

/*
 * The CCT fallback: runs benchmark b once with the CCT runtime (collect/cct_run.h) in
 * profile_build->worktree (rev built with [build] profile-command, variant "cct") and
 * stores, per function, its calls and exclusive time in ns summed over all its contexts
 * as the dynamic data of (build, b) — the normal build of rev, which the predictor looks
 * up — with source "cct" and cost "self_ns", replacing earlier data. Only instrumented
 * functions are seen (not libc's). Files (the *.cct profiles, run.log) under
 * sd->root/dynamic/<sha12>/<bench>/. Returns as predict_collect_dynamic(); RP_EINPUT also
 * when no readable profile was written or no instrumented function ran.
 */
int predict_collect_dynamic_cct(struct predict_ctx *ctx, const struct revision *rev,
				const struct store_build *build,
				const struct store_build *profile_build,
				const struct bench_config *b, struct predict_dynamic *out);

/*
 * Adds every function of a calling context tree to `out` (perphecy_profile_init() done by
 * the caller): calls and exclusive weight of all its nodes, summed per name (the
 * exclusive weight is ns for the CCT runtime's trees; with calls_only, the tree is
 * weighted by calls and the cost added is 0). "[thread K]" nodes are skipped. Returns 0
 * or RP_EINPUT from perphecy_profile_add().
 */
struct cct;
int predict_profile_from_cct(const struct cct *tree, bool calls_only, struct perphecy_profile *out);

/*
 * Stores the functions of `tree` (a CCT runtime profile, e.g. the merged profiled runs of
 * compare's `profile = cct`; predict_profile_from_cct()) as the dynamic data of
 * (build_id, benchmark_id), source "cct", cost "self_ns", path recorded (may be NULL).
 * build_id must be the normal build of the commit (the configured build command, variant
 * ''), not the instrumented one. With keep_existing, data already stored for that pair
 * is kept. Returns 0 (stored), 1 (nothing stored: data was there, or no function in the
 * tree), RP_EINPUT, RP_EINTERNAL.
 */
int predict_dynamic_save_cct(struct store *st, int64_t build_id, int64_t benchmark_id,
			     const struct cct *tree, bool calls_only, const char *path,
			     bool keep_existing);

/*
 * Stores the functions of the callgrind files in `dir` (one counted run of compare's ir
 * or sim-cycles, collect/valgrind_run.h) as the dynamic data of (build_id, benchmark_id),
 * source "callgrind", cost "instructions", so that predict and train use the runs compare
 * already made. With keep_existing, data already stored for that pair is kept. Returns 0
 * (stored), 1 (kept, or no function), RP_EINPUT, RP_EINTERNAL.
 */
int predict_dynamic_save_callgrind(struct store *st, int64_t build_id, int64_t benchmark_id,
				   const char *dir, bool keep_existing);

/*
 * The static data of (i, u) for one program: the binary diff of bin_i and bin_u
 * (perphecy_static_from_bindiff()), kept in sd->root/predict/ when ctx->use_cache, keyed
 * by both paths, sizes and modification times. `out` is initialised here (release with
 * perphecy_static_release()). Returns 0, or RP_EINPUT / RP_EINTERNAL from the diff.
 */
int predict_static(struct predict_ctx *ctx, const char *bin_i, const char *bin_u,
		   struct perphecy_static *out);

/* i for (u, b). */
struct predict_ancestor {
	char sha[41];
	int64_t profile_id; /* its dynamic data */
	char cost[16];	    /* the data's cost unit (store_dynamic_cost_name()) */
	unsigned depth;	    /* first-parent steps from u (1 = the parent) */
};

/*
 * The closest first-parent ancestor of u (u excluded) whose build with the configured
 * build command has dynamic data of b, at most ctx->max_ancestors steps away. Returns 0
 * (found), 1 (none), RP_EINPUT (u is not a commit of the repository), RP_EINTERNAL.
 */
int predict_find_ancestor(struct predict_ctx *ctx, const char *sha_u, const struct bench_config *b,
			  struct predict_ancestor *out);

/*
 * The dynamic data of b at commit sha itself (its build with the configured build
 * command), as predict_find_ancestor() describes it (depth 0). Returns 0 (found), 1
 * (none), RP_EINTERNAL.
 */
int predict_dynamic_at(struct predict_ctx *ctx, const char *sha, const struct bench_config *b,
		       struct predict_ancestor *out);

/* The first parent of sha (41 bytes); returns 0, 1 for a root commit, or RP_EINPUT. */
int predict_first_parent(struct predict_ctx *ctx, const char *sha, char parent[41]);

/* ---- predictions ---- */

enum predict_mode {
	PREDICT_PERPHECY = 0, /* the trained predictor (METHODS.md section 7) */
	PREDICT_TESTS,	      /* PeASS (section 8): a function reached at i changed, or the
				 call trace at u differs */
};

enum predict_scope {
	PREDICT_SCOPE_COMMON = 0, /* the common predictor for every benchmark */
	PREDICT_SCOPE_BENCH,	  /* the benchmark's own, else the common one */
};

/* PeASS's trace rule: b's call trace at u (its dynamic data there) against the one at i. */
enum predict_trace {
	PREDICT_TRACE_NOT_COMPARED = 0, /* no dynamic data of b at u, or not needed */
	PREDICT_TRACE_SAME,		/* the same functions, each with the same calls */
	PREDICT_TRACE_DIFFERS,		/* a function reached at one only, or with other calls */
	PREDICT_TRACE_OTHER_SOURCE,	/* not comparable: one is callgrind's, the other cct's */
};

/* "not-compared", "same", "differs", "other-source" */
const char *predict_trace_name(enum predict_trace t);

/* Why a benchmark is run or skipped. */
enum predict_reason {
	PREDICT_FIRED = 0,	 /* run: an indicator fired */
	PREDICT_DISMISSED,	 /* skip: no indicator fired */
	PREDICT_NO_PREDICTOR,	 /* run: nothing trained for it */
	PREDICT_NO_DATA,	 /* run: no ancestor has dynamic data of it */
	PREDICT_REACHED_CHANGED, /* run (tests): a function it reached changed */
	PREDICT_NOT_REACHED,	 /* skip (tests): nothing it reached changed */
	PREDICT_TRACE_CHANGED,	 /* run (tests): its call trace at u differs from the one at i */
	PREDICT_MARKED_PATH,	 /* run: the commit touches one of its select-paths */
};

/* "fired", "dismissed", "no-predictor", "no-dynamic-data", "reached-changed", "not-reached",
 * "trace-changed", "marked-path" */
const char *predict_reason_name(enum predict_reason r);

struct predict_bench {
	char *name;
	bool run;
	enum predict_reason reason;
	struct predict_ancestor ancestor; /* sha "" when there is none */
	bool has_values;		  /* values below were computed */
	struct perphecy_values values;
	char *indicator;   /* PREDICT_FIRED: the indicator that fired, e.g. "Del Func >= 2" */
	const char *scope; /* the predictor used: "common" or the benchmark's name; NULL */
	char *function;	   /* PREDICT_REACHED_CHANGED: the hottest changed function it reached;
			      PREDICT_TRACE_CHANGED: the first function (by name) whose calls differ */
	size_t nr_reached_changed;
	enum predict_trace trace; /* tests: the call traces at i and u compared */
	/* PREDICT_TRACE_CHANGED: the function's calls at i and at u (0: not reached there) */
	uint64_t calls_i, calls_u;
	char *path; /* PREDICT_MARKED_PATH: the path the commit touches ... */
	char *glob; /* ... and the select-paths glob it matches */
};

struct predict_result {
	char sha[41];
	enum predict_mode mode;
	struct predict_bench *benches; /* in configuration order */
	size_t nr_benches;
	size_t nr_run;
	bool trivial;	    /* the predictor used had no hit to learn from: selects nothing */
	bool no_predictor;  /* nothing trained yet */
	int64_t trained_at; /* of the common predictor; 0 = none */
	size_t train_tuples, train_hits; /* of the common predictor */
};

/*
 * Predicts, for commit u built as build_u (the configured build command), which of the
 * configured benchmarks it needs. Perphecy mode applies the stored predictors (scope);
 * with none, every benchmark runs (PREDICT_NO_PREDICTOR). Tests mode applies PeASS's rules
 * (METHODS.md section 8): a function reached at i modified or deleted, else, when b has
 * dynamic data at u too, a call trace that differs. In both modes a benchmark without an
 * ancestor with dynamic data always runs, and so does one whose select-paths match a path
 * that differs between the trees of i and u (checked first: i is not built then). Fills
 * *out (release with predict_result_release()).
 * Returns 0, RP_EINPUT (an ancestor does not build, a binary is missing or not ELF, a
 * stored predictor is corrupt), RP_EINTERNAL.
 */
int predict_revision(struct predict_ctx *ctx, const struct revision *u,
		     const struct store_build *build_u, enum predict_mode mode,
		     enum predict_scope scope, struct predict_result *out);
void predict_result_release(struct predict_result *r);

/* Keeps in cfg only the benchmarks r runs (config_select()). Returns 0 or RP_EINPUT. */
int predict_select(struct config *cfg, const struct predict_result *r);

/* ---- training ---- */

struct predict_train_opts {
	bool evaluate; /* k-fold cross-validation */
	unsigned k;    /* folds (10) */
	uint64_t seed; /* fold assignment (1) */
	bool save;     /* store the predictors (true) */
	enum perphecy_cover cover; /* Algorithm 1's (PERPHECY_COVER_PAPER) */
	unsigned templates;	   /* PERPHECY_PAPER_TEMPLATES, or with the start-up ones */
	double min_dismiss;	   /* the dismiss budget (perphecy_train_budget()); < 0 off */
	double dismiss_goal;	   /* the budget chosen for it (perphecy_train_goal()); < 0 off */
};
void predict_train_opts_init(struct predict_train_opts *o);

/* Where a training tuple came from (parallel to the tuples). */
struct predict_tuple_source {
	char commit[41], ancestor[41];
	int64_t comparison_id;
};

struct predict_training {
	struct perphecy_tuple *tuples; /* .bench indexes bench_names, .commit commits */
	struct predict_tuple_source *sources;
	size_t nr_tuples, alloc_tuples;
	char **bench_names;
	size_t nr_bench;
	size_t nr_commits, nr_hits, nr_misses;
	/* labelled (comparison, benchmark) pairs left out, by reason */
	size_t nr_undecided, nr_no_ancestor, nr_not_parent, nr_unconfigured, nr_superseded;
	enum perphecy_cover cover; /* how the predictors were trained */
	unsigned templates;	   /* ... and from which templates */
	double min_dismiss;	   /* ... with which dismiss budget (< 0: none) */
	double dismiss_goal;	   /* ... or which dismiss goal (< 0: none) */
	struct perphecy_predictor common;
	struct perphecy_predictor *per_bench; /* nr_bench */
	/* with a dismiss goal: the budget each predictor's inner cross-validation chose */
	struct perphecy_goal_choice goal_common, *goal_bench; /* nr_bench */
	struct perphecy_eval full;	      /* the common predictor on its training set */
	bool evaluated;
	struct perphecy_cv_result cv_common, cv_bench;
};

/*
 * Collects the training tuples from stored verdicts: for each comparison of a commit u with
 * its first parent, or with i itself, and each configured benchmark b with primary
 * verdicts, the tuple (u, i, b), hit when a primary metric is worse or better, miss when
 * all are equal (undecided left out; of several comparisons of u, the latest counts).
 * Learns the common and per-benchmark predictors (Algorithm 1), cross-validates them when
 * o->evaluate, and stores them with their tuples when o->save. Fills *out (release with
 * predict_training_release()). Returns 0; RP_EINPUT after an error when there is no
 * training data (says what to run) or a build or binary fails; RP_EINTERNAL.
 */
int predict_train(struct predict_ctx *ctx, const struct predict_train_opts *o,
		  struct predict_training *out);
void predict_training_release(struct predict_training *t);

/* The tuples as JSON (docs/prediction.md), for the store; the caller frees. `bench` < 0:
 * every tuple, else only that benchmark's. */
char *predict_tuples_json(const struct predict_training *t, long bench);

#endif
