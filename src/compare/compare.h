#ifndef REVPERF_COMPARE_COMPARE_H
#define REVPERF_COMPARE_COMPARE_H

#include "collect/machine.h"
#include "core/build.h"
#include "core/config.h"
#include "core/metric.h"
#include "store/store.h"
#include "store/store_show.h"
#include "util/common.h"

/* One side of a comparison: a built revision, or (--cmd-a/--cmd-b) a command. */
struct compare_side {
	const char *label;   /* the revision expression, or "A"/"B" */
	const char *sha;     /* NULL in command mode */
	int64_t build_id;
	const char *cwd;     /* worktree of the revision; NULL = current directory */
	const char *command; /* command mode: this side's command; NULL = the benchmark's */
	/* profiled runs (profile = cct): the instrumented build and its worktree */
	int64_t profile_build_id;
	const char *profile_cwd;
};

/* What a comparison is doing, for a progress display (the command renders it). */
enum compare_phase {
	COMPARE_WARMUP,	   /* a warm-up run of one side is about to start */
	COMPARE_RUN,	   /* a measured run of one side is about to start */
	COMPARE_PROFILING, /* the profiled runs (profile = cct) are about to start */
	COMPARE_TRACING,   /* the traced runs (profile = io) are about to start */
	COMPARE_COUNTING,  /* the counted runs (ir, sim-cycles) are about to start */
	COMPARE_BENCH_DONE /* the benchmark is finished: clear the display */
};

struct compare_progress {
	enum compare_phase phase;
	const char *bench; /* valid during the callback only */
	char side;	   /* 'A' or 'B' for WARMUP and RUN */
	size_t run;	   /* RUN: this side's run about to start, from 1 */
	size_t max_runs;   /* RUN: the most runs per side; PROFILING/TRACING: runs per side */
	double elapsed_s;  /* since the benchmark started */
	double eta_s;	   /* RUN: an upper bound of the time left; < 0 when not known yet */
};

/* Called from the comparing thread; must not call back into the comparison. */
typedef void (*compare_progress_fn)(void *arg, const struct compare_progress *ev);

struct compare_request {
	struct config *cfg; /* finished (config_finish) */
	struct store *st;
	const struct state_dir *sd;
	struct compare_side a, b;
	bool same_build; /* A/A: both sides are one build; their runs are kept apart */
	compare_progress_fn progress; /* NULL: no progress reports */
	void *progress_arg;
	bool fresh;      /* ignore stored runs: measure everything anew */
	bool more;       /* continue with a new budget: min..max runs more than stored */
	/* Non-NULL: run and store nothing; the verdicts of this stored comparison are
	 * computed again from its stored runs (profiles and counted runs are not shown). */
	const struct store_comparison_info *replay;
	/* With replay, for revperf show: judged with what that comparison recorded (its
	 * tolerances, metrics and primary lists), not with the configuration's. */
	bool replay_as_judged;
	/* With replay_as_judged: the configuration is not the user's but rebuilt for the
	 * replay (show of --cmd-a/--cmd-b): the recorded plan is taken without a warning. */
	bool replay_own_config;
};

struct cct_attribution;
struct io_attribution;
struct counters_attribution;
struct counted_attribution;
struct reported_line;

/* Whether the two builds of a benchmark's program hold the same code (compare_binary.h). */
enum same_code {
	SAME_CODE_UNKNOWN = 0, /* not two builds of an ELF program of the worktree */
	SAME_CODE_IDENTICAL,   /* the binary diff found every function unchanged */
	SAME_CODE_DIFFERS,
};

/* The verdict of one benchmark and metric. */
struct metric_outcome {
	const struct metric_def *def;
	bool primary;
	bool measured; /* at least two values on each side */
	const char *unmeasured; /* why it is not measured (static text); NULL when it is */
	size_t n_pairs; /* complete interleaved pairs; >= 2: the verdict is paired */
	struct verdict_result r;
	double q_bh; /* Benjamini-Hochberg adjusted r.p over the whole report */
	/* Per side (0 baseline, 1 target), for a script: the value of each run behind the
	 * verdict, oldest first, and the run it came from (run_ids NULL: runs not stored one
	 * by one, as counted and imported runs); median NaN without values. Owned. */
	double *values[2];
	int64_t *run_ids[2];
	size_t nr_values[2];
	double median[2];
};

struct bench_outcome {
	char *name;
	int64_t benchmark_id;
	struct metric_outcome *metrics;
	size_t nr_metrics;
	size_t ok_a, ok_b;         /* successful runs used per side */
	size_t reused_a, reused_b; /* of which were stored before this comparison */
	size_t failed_a, failed_b; /* failed, crashed or timed-out runs (excluded) */
	size_t looks;              /* how many times the verdict was evaluated */
	size_t extended_looks;     /* of which past max runs (time budget, alpha spending) */
	double tolerance;          /* the equivalence margin: 0.02 = 2% */
	double count_tolerance;    /* of counted metrics, and of counts whose runs agree */
	double ci_alpha;           /* each look's alpha: CIs are (1 - ci_alpha) intervals */
	bool decided;              /* every primary metric decided before the budget ran out */
	/* Every metric is counted (ir, sim-cycles) and no profile samples the timing runs: no
	 * timing run was made; ok_a..failed_b and looks are 0 (counted: its runs). */
	bool counted_only;
	/* Counted only, no timeout known: one warm-up of A without valgrind set the counted
	 * runs' timeout, this many seconds (0: no such warm-up). */
	double probe_timeout_s;
	bool interrupted;          /* an interrupt (SIGINT, ...) stopped its runs or phases */
	char *error;               /* the benchmark could not be compared: why */
	bool target_broken;        /* the baseline ran, the target fails: a regression */
	struct store_run_issue *issues; /* failed runs, and successful runs with a note */
	size_t nr_issues;
	double elapsed_s;
	struct cct_attribution *cct; /* profile = cct: the attribution, NULL otherwise */
	struct io_attribution *io;   /* profile = io: the I/O similarity, NULL otherwise */
	struct counters_attribution *counters; /* profile = counters: control charts, or NULL */
	struct counted_attribution *counted;   /* counted metrics (ir, ...): runs, attribution */
	char pinned[64];       /* the CPUs the timing runs were pinned to; "" = not pinned */
	size_t quiet_pairs;    /* pairs that waited for a quiet machine (quiet = ...) */
	size_t noisy_pairs;    /* of which the machine was still busy after the longest wait */
	double quiet_wait_s;   /* time spent waiting */
	struct reported_line *reported; /* the lines reported metrics read (run_output.h) */
	size_t nr_reported;
	/* The command each side ran (0 baseline, 1 target); NULL when unknown (imported) */
	char *command[2];
	struct store_run_end *run_ends[2]; /* every non-warm-up run per side, oldest first */
	size_t nr_run_ends[2];
	enum same_code same_code;
	char *program;			       /* the program diffed, relative to the worktree */
	size_t functions_total, functions_changed;
	struct renamed_fn {		       /* the binary diff's renamed functions (owned) */
		char *old_name, *new_name;
	} *renamed;
	size_t nr_renamed;
	/* SAME_CODE_DIFFERS: the functions that differ, changes of the code first, then the
	 * largest change in instructions first, then by name (compare_binary.h). Owned. */
	struct changed_fn {
		char *name;	  /* the target's name (the baseline's when deleted) */
		char *old_name;	  /* renamed: the baseline's name; else NULL */
		const char *cls;  /* "modified", "renamed", "added", "deleted" (static) */
		const char *only; /* not a change of the code: "a line-number constant" or
				     "a clone suffix" (static); NULL for a change of the code */
		int64_t insns[2]; /* static instructions in the baseline's and the target's
				     build; -1 when not in that build */
	} *changed;
	size_t nr_changed;
};

struct compare_result {
	int64_t comparison_id;
	char *base_label, *target_label;
	char base_sha[41], target_sha[41];
	uint64_t seed;
	double alpha;
	struct machine_info machine;
	struct bench_outcome *benches;
	size_t nr_benches;
	bool interrupted;
	bool resumable; /* the same command again reuses its stored runs (git mode) */
	bool replayed;  /* a stored comparison shown again: no look was taken, no time spent */
	int interrupt_signal; /* the signal that interrupted it (SIGINT, SIGTERM, SIGHUP) */
	int exit_code;	      /* what the command exits with: set before rendering (cli) */
	bool same_build;
	bool imported; /* built from other tools' result files: no runs, machine unknown */
	/* run-time metric definitions the outcomes point to; freed with the result */
	struct metric_def **owned_defs;
	size_t nr_owned_defs, alloc_owned_defs;
};

/* Hands a run-time metric definition to res (freed by compare_result_release()). */
void compare_result_own_def(struct compare_result *res, struct metric_def *def);

/*
 * Runs every configured benchmark on both sides (warm-up runs, then randomized interleaved
 * pairs until the primary metrics are decided or the budget is spent, METHODS.md 1-2),
 * storing every run as it finishes, and fills *out with the verdicts (also stored).
 * Stored successful runs of earlier comparisons of the same pair of builds (same
 * direction), benchmark definition and machine are reused, each side apart, unless
 * req->fresh.
 * Returns 0 (also when interrupted: out->interrupted), RP_EINPUT when a benchmark cannot be
 * started at all, RP_EINTERNAL on a store failure. Release out with compare_result_release().
 */
int compare_execute(const struct compare_request *req, struct compare_result *out);
void compare_result_release(struct compare_result *res);

/*
 * 128 + the signal when the comparison was interrupted; else 1 when a primary metric of
 * some benchmark is worse (or the target broke); else 2 when a benchmark could not be
 * compared (its baseline keeps failing, or a metric it reports never matched); else 0.
 */
int compare_exit_code(const struct compare_result *res);

#endif
