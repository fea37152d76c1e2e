#ifndef REVPERF_STORE_STORE_HISTORY_H
#define REVPERF_STORE_STORE_HISTORY_H

/*
 * The measured history as the store returns it (docs/report.md): the data model that
 * history/history_data.c completes (points, change points, indexes) and the set-based
 * queries that fill it (store_history.c). The store owns the shape of what it returns, so
 * that a second database engine fills the same structures.
 *
 * A struct history is read-only once loaded; not thread-safe while loading.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/proc.h"
#include "util/common.h"

struct metric_def;
struct store;

#define HISTORY_NONE ((size_t)-1)
/* The level of the interval around each point's median. */
#define HISTORY_CI_LEVEL 0.95

/* The machine whose runs make the series: the one with the most runs. */
struct history_machine {
	int64_t id;
	char *hostname, *cpu_model, *kernel, *governor;
	int cores;
	size_t nr_runs; /* its runs, warm-ups and failed ones included */
};

/*
 * A commit of the history: its main build (variant '') has runs on the machine (a measured
 * commit), or failed (no run: history_measured() is false).
 */
struct history_commit {
	int64_t revision_id, build_id;
	char *sha, *summary; /* as stored: untrusted text */
	int64_t commit_time; /* unix seconds */
	bool build_failed;
	bool on_line;	   /* on the followed history (history.line_name); charts draw these */
	char *build_command; /* the build's command as stored: untrusted text */
	char *build_log;   /* NULL when none was recorded */
	bool build_log_stored; /* the store keeps it (build_logs: store_build_log_get()) */
	size_t comparison; /* index into history.comparisons, or HISTORY_NONE */
};

/* Non-warm-up runs of one commit and benchmark that did not succeed, by status. */
struct history_failures {
	uint32_t failed, crashed, timeout, other; /* other: not started, interrupted */
};

/* One commit of a series. */
struct history_point {
	size_t commit;		     /* index into history.commits */
	size_t n;		     /* successful runs that have the metric; 0: only failed runs */
	double median, ci_lo, ci_hi; /* NAN when n == 0 */
	double ci_coverage;	     /* the interval's exact coverage (stats_median_ci) */
	bool ci_minmax;		     /* fewer than 6 runs: the interval is min..max */
	struct history_failures fail;
};

/* A change point of a series (analysis/changepoint.h). */
struct history_change {
	size_t point;  /* the first point of the new segment (index into series.points) */
	size_t commit; /* its commit */
	double median_before, median_after; /* medians of the segments' point medians */
	double rel_change;		    /* (after - before) / |before|; NAN if before is 0 */
	/* its (1 - ci_alpha) interval (changepoint.h); NAN when rel_change is */
	double rel_change_lo, rel_change_hi, ci_alpha;
	size_t n_before, n_after; /* commits in the segments before and after */
	double p_value;
};

struct history_series {
	size_t bench; /* index into history.benches */
	char *metric;
	const struct metric_def *def; /* NULL for a metric revperf does not know (imported) */
	struct history_point *points; /* in commit order: commits with a value or a failure */
	size_t nr_points;
	size_t nr_line_points;		/* points[0..nr_line_points) are on the followed history */
	struct history_change *changes; /* by commit */
	size_t nr_changes;
};

/* Bytes written by the traced runs of one commit (profile = io). */
struct history_bytes {
	size_t commit;
	double mean_bytes; /* per traced run, write family, all files */
	size_t nr_profiles;
};

/* A benchmark name (definitions with other commands are the same benchmark). */
struct history_bench {
	char *name;
	size_t first_series, nr_series; /* its series, contiguous in history.series */
	struct history_bytes *bytes;	/* commits with readable I/O profiles, in order */
	size_t nr_bytes;
	size_t nr_line_bytes; /* bytes[0..nr_line_bytes) are on the followed history */
};

struct history_verdict {
	size_t bench;
	int64_t benchmark_id;
	char *metric, *verdict;
	bool primary;
	double ratio, ci_lo, ci_hi, p; /* p of the test behind the interval; NAN if none */
	size_t n_a, n_b;
};

/* A run of a comparison, for the commit page: duration, status and where its log is. */
struct history_run {
	int64_t id, comparison_id, benchmark_id, machine_id;
	size_t bench;
	char side; /* 'A' baseline, 'B' target */
	bool warmup;
	enum run_status status;
	int exit_code, signal;
	double wall; /* seconds; NAN when not measured (a failed run) */
	char *detail;
	const char *log_path; /* shared: one of history.strings; NULL when none */
	int64_t log_offset, log_length;
};

/* An I/O profile on record (profile = io), for the bytes series and the commit pages. */
struct history_io_profile {
	int64_t build_id, benchmark_id, machine_id;
	size_t bench;
	char *path;
};

/* The latest finished comparison whose target is a commit's build. */
struct history_comparison {
	int64_t id, base_build, target_build;
	char *base_label, *target_label, *base_sha; /* base_sha NULL: --cmd-a builds */
	size_t commit;				    /* the target commit */
	size_t base_commit; /* the base commit when it is measured too, else HISTORY_NONE */
	int64_t machine_id; /* recorded (schema 13), else of its runs; 0 when it has none */
	bool recorded_machine; /* machine_id is the one it recorded */
	int64_t created_at;
	struct history_verdict *verdicts; /* by benchmark name, then primary first, metric */
	size_t nr_verdicts;
	struct history_run *runs; /* those of the comparisons of the same pair up to it */
	size_t nr_runs;
};

struct history {
	bool has_machine;
	bool machine_named; /* the machine was asked for by name, not the one with most runs */
	struct history_machine machine;
	size_t other_machine_runs; /* runs left out: measured on other machines */
	size_t nr_machines;
	struct history_commit *commits; /* on the followed history first, in its order */
	size_t nr_commits;
	size_t nr_line;	 /* commits[0..nr_line) are on the followed history */
	char *line_name; /* what it follows ("main"); NULL: every commit, by commit time */
	struct history_bench *benches; /* by name */
	size_t nr_benches;
	struct history_series *series; /* by benchmark, then metric (revperf's order) */
	size_t nr_series;
	struct history_comparison *comparisons; /* by target commit */
	size_t nr_comparisons;
	size_t latest_comparison;      /* the latest of them, HISTORY_NONE when none */
	struct history_io_profile *io; /* by build, benchmark, path */
	size_t nr_io;
	char **strings; /* owned strings shared by runs (log paths) */
	size_t nr_strings, alloc_strings;
	/* private */
	size_t alloc_commits, alloc_benches, alloc_series, alloc_comparisons, alloc_io;
};

/* ---- The queries behind history_load() (store_history.c) ---- */

/* A benchmark definition and the name it goes by (history.benches). */
struct history_bench_id {
	int64_t id;
	size_t bench;
};

/*
 * Every benchmark name into h->benches (sorted), and the definitions in *ids (sorted by
 * id; the caller frees it).
 */
int store_history_benches(struct store *st, struct history *h, struct history_bench_id **ids,
			  size_t *nr);

/*
 * The machine whose runs make the series: the one named `name` (its host name as stored,
 * REVPERF_MACHINE for a worker), or with the most runs when name is NULL (none when there
 * are no runs); and the runs of the others. A name with no runs is RP_EINPUT after an
 * error line naming the machines that have some.
 */
int store_history_machine(struct store *st, struct history *h, const char *name);
/* The names of the machines with runs, most runs first, into *names (free each and the
 * array). 0 or RP_EINTERNAL. */
int store_history_machine_names(struct store *st, char ***names, size_t *n);

/*
 * The commits into h->commits: revisions whose main build has a non-warm-up run on h's
 * machine or failed, ordered by commit_time, then revision id. One build per revision:
 * the one with the most such runs (then a failed one, then the newest).
 */
int store_history_commits(struct store *st, struct history *h);

/* One metric value of a successful run, or a run that did not succeed (metric NULL). */
struct history_value_row {
	int64_t build_id, benchmark_id;
	int64_t started_at; /* of the run (seconds since the epoch) */
	const char *metric; /* valid during the callback only; NULL without a value */
	enum run_status status;
	double value;
};
/*
 * Calls fn for every metric value of the successful non-warm-up runs on h's machine, and
 * once (metric NULL) for every non-warm-up run there that did not succeed. Returns 0, fn's
 * non-zero return, or RP_EINTERNAL.
 */
int store_history_values(struct store *st, const struct history *h,
			 int (*fn)(void *ctx, const struct history_value_row *row), void *ctx);

/* The successful I/O profiles of every machine into h->io (bench not set), by build, id. */
int store_history_io(struct store *st, struct history *h);

/*
 * The latest finished comparison per target build into h->comparisons (sorted by id),
 * with its verdicts and the runs of the comparisons of the same (base, target) pair up to
 * it, their log paths shared through h->strings. Indexes (commit, bench) are not set.
 */
int store_history_comparisons(struct store *st, struct history *h);
/*
 * Starts the reads of store_history_comparisons() (the comparisons chosen, their verdicts
 * and runs, in one snapshot) where the engine runs them in the background (db_prefetch():
 * PostgreSQL, on a connection of their own), so that the server computes them while the
 * caller reads the commits and values; store_history_comparisons() then takes their
 * results. Call it first, and store_history_prefetch_end() at the end (it waits for and
 * drops those not taken; store_close() does too).
 */
void store_history_prefetch(struct store *st);
void store_history_prefetch_end(struct store *st);

#endif
