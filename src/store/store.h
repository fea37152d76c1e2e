#ifndef REVPERF_STORE_STORE_H
#define REVPERF_STORE_STORE_H

#include "analysis/verdict.h"
#include "collect/machine.h"
#include "collect/sampler.h"
#include "collect/proc.h"
#include "util/common.h"

/*
 * The results database: .revperf/revperf.db, SQLite in WAL mode with a versioned schema
 * (PRAGMA user_version) migrated forward on open, and PRAGMA application_id marking it as
 * revperf's. Every write that belongs together happens in one transaction, so that an
 * interrupted revperf loses nothing committed and leaves nothing half-written.
 * Schema: docs/store.md. A store handle is not thread-safe.
 */
struct store;

#define STORE_SCHEMA_VERSION 14

enum store_open_flags {
	/* The store must hold revperf's schema already (commands that only read): an empty
	 * database is an error that says how to fill it, and is left as it is. */
	STORE_OPEN_EXISTING = 1 << 0,
};

/*
 * Opens (creating and migrating as needed) the database at path. Returns 0, RP_EINPUT when
 * the file is not a database, belongs to another program, is corrupt or comes from a newer
 * revperf (one error line says which and what to do), RP_EINTERNAL otherwise.
 * Free with store_close().
 */
int store_open(const char *path, unsigned flags, struct store **out);
void store_close(struct store *st);

/*
 * Store locations: a PostgreSQL connection string (postgresql://, postgres:// or libpq's
 * key=value pairs, "host=... dbname=...") or else an SQLite file's path. store_location_is_postgres() tells which;
 * store_location_has_password() whether the string itself holds a password (better kept in
 * PGPASSFILE or PGPASSWORD); store_location_display() appends it for a message, without
 * its password.
 */
bool store_location_is_postgres(const char *where);
bool store_location_has_password(const char *where);
struct strbuf;
void store_location_display(const char *where, struct strbuf *out);

/*
 * Whether a statement of st failed because another process held a lock on the database
 * (longer than the busy timeout, 10 s). The error line named that process where
 * /proc/locks tells; the command then exits 2 (the user must act), not 3.
 */
bool store_lock_failed(const struct store *st);
/*
 * Whether a statement of st failed because the PostgreSQL server was gone (its connection
 * lost, and not back within the wait): the command then exits 2 (the user must start it),
 * not 3; what was stored before stays.
 */
bool store_unreachable(const struct store *st);

/*
 * The store's own id: 32 hex digits (128 random bits) made by the first command that asks
 * with make (revperf push, or a command that writes to the store from a state directory
 * it is not the own store of: core/build.h), the same from every machine that opens it.
 * Two processes that made one at once both stored theirs: the smallest is the id, for
 * everyone. Without make, a store that has none yet gives "" (a command that only reads
 * writes nothing). Returns 0, RP_EINPUT with an error when the stored id is not 32 hex
 * digits (it names folders), or RP_EINTERNAL with an error.
 */
int store_identity(struct store *st, bool make, char out[33]);

/*
 * Checks, cheaply (a few stat() calls and reads of a header), that the database's files are
 * still the ones store_open() opened: the database file not deleted, replaced, truncated
 * or overwritten, its write-ahead log (-wal) and its index (-shm) not deleted or replaced,
 * the log's header intact. Called after each run of a benchmark or build, which may
 * (wrongly) clean its directory; `during` says which, for the message ("benchmark 'x'").
 * Returns 0, or RP_EINTERNAL after one error line that names the file, says what happened
 * and suggests a state directory outside the project (--state-dir). Once a check failed,
 * later calls fail without printing.
 */
int store_check_files(struct store *st, const char *during);

/*
 * At the end of a command that ran benchmarks (store_check_files() was called): the
 * checks of store_check_files() and SQLite's PRAGMA quick_check of the whole database.
 * Returns 0 (also when nothing ran since the last store_verify(): nothing checked), or
 * RP_EINTERNAL after one error line naming the file.
 */
int store_verify(struct store *st);

/* The database engine and its library version, e.g. "sqlite 3.40.1" (static storage). */
const char *store_engine_version(void);
/* The engine of an open store: "sqlite" or "postgresql". */
const char *store_engine(const struct store *st);
/* The store for messages: the SQLite file's path, or the PostgreSQL URL without password. */
const char *store_name(const struct store *st);

/* The machine row for m (created on first use). */
int store_machine(struct store *st, const struct machine_info *m, int64_t *id);
/* The revision row for a commit (created on first use). */
int store_revision(struct store *st, const char *sha, const char *summary, int64_t commit_time,
		   int64_t *id);

struct store_build {
	int64_t id;
	int64_t revision_id; /* 0 for builds of the --cmd-a/--cmd-b mode */
	char *command;       /* build command; "" when there is nothing to build */
	char *worktree;
	char *log_path;
	char status[16]; /* "ok" or "failed" */
	char variant[16]; /* "" the build itself; "cct" the instrumented build of profiles */
	ns_t duration_ns;
	/* 0, 1, ...: one more each time (revision, command, variant) was built again into
	 * programs other than those its stored runs measured (core/build.c); the newest is
	 * the one in use, the older ones keep their runs for show and report. */
	int64_t generation;
	/* What the build produced (binary/fingerprint.h); NULL: not recorded (a build made
	 * before schema 14, or a failed one). Owned: store_build_release(). */
	char *fingerprint;
};
void store_build_release(struct store_build *b);

/*
 * Finds the build of (revision, command, variant; NULL = ""): its newest generation.
 * Returns 0 found, 1 not found, <0 error.
 */
int store_build_find(struct store *st, int64_t revision_id, const char *command,
		     const char *variant, struct store_build *out);
/*
 * Inserts or replaces the build of (revision, command, variant, generation); sets b->id.
 * A NULL fingerprint keeps the one recorded (a failed build again: the runs stored were
 * of the programs recorded).
 */
int store_build_save(struct store *st, struct store_build *b);
/* Records the fingerprint of build id (a build made before schema 14, at its next use). */
int store_build_fingerprint_set(struct store *st, int64_t id, const char *fingerprint);
/*
 * What is stored of build id's programs: *runs its timed runs (not the warm-ups), *counted
 * its counted runs (profiles vg-ir, vg-cache), *profiles its other profiles and dynamic
 * data. Returns 0 or RP_EINTERNAL.
 */
int store_build_measured(struct store *st, int64_t id, size_t *runs, size_t *counted,
			 size_t *profiles);

/* The benchmark row for a (name, command) definition (created on first use). */
int store_benchmark(struct store *st, const char *name, const char *command, int64_t *id);

struct store_comparison {
	int64_t id;
	int64_t base_build, target_build;
	const char *base_label, *target_label;
	uint64_t seed;
	double alpha;
	int64_t machine_id; /* where it runs (0: not recorded) */
};
/*
 * Records a new comparison, status 'running', with this process (host, boot id, pid and
 * its start time): store_open() marks 'abandoned' the running comparisons of this host
 * whose process is gone (killed with SIGKILL, a crash, a reboot).
 */
int store_comparison_new(struct store *st, struct store_comparison *c);
/* Sets its final status: "done", "interrupted" or "failed". */
int store_comparison_finish(struct store *st, int64_t id, const char *status);

struct store_run {
	int64_t id;
	int64_t build_id, benchmark_id, machine_id, comparison_id;
	char side; /* 'A' (baseline) or 'B' (target) */
	bool warmup;
	enum run_status status;
	int exit_code, signal;
	const char *detail;
	const char *log_path; /* shared by the runs of one side: this run's output is */
	int64_t log_offset, log_length; /* log_length bytes from log_offset */
	int64_t started_at; /* unix seconds */
	double loadavg;
	int64_t pair_seq; /* the interleaved pair (round) within its comparison; 0 = none */
	/* The run's output (the log_length bytes at log_offset), kept compressed in the
	 * database with the run (run_logs); NULL: none kept (compare keeps none of a
	 * successful run without output). */
	const void *log_data;
	size_t log_data_len;
};

/*
 * Inserts a run and its metric values (names[i] = values[i]) in one transaction; sets
 * run->id. Returns 0 or RP_EINTERNAL.
 */
int store_run_insert(struct store *st, struct store_run *run, const char *const *names,
		     const double *values, size_t n);

/*
 * Which runs a query selects: the runs of one side of a comparison pair (base build,
 * target build), one benchmark and one machine. Only runs made by comparisons of the same
 * pair are reused, so that every value comes from the randomized interleaving of this very
 * comparison (runs of another pair were measured at another time). comparison_id, when
 * non-zero, restricts to the runs of that one comparison (--fresh), or when negative to
 * those of the comparisons up to -comparison_id (a replay: what it measured, not the runs
 * of later comparisons); since_comparison, when non-zero, to the runs of comparisons from
 * that id on (the earlier ones lack a metric asked for: store_run_lacking()).
 */
struct store_run_filter {
	int64_t base_build, target_build;
	char side; /* 'A': runs of base_build, 'B': runs of target_build */
	int64_t benchmark_id, machine_id;
	int64_t comparison_id;
	int64_t since_comparison;
};

/* What a comparison planned for a benchmark before its first run (comparison_plans). */
struct store_plan {
	size_t min_runs, max_runs; /* its looks: runs MIN..MAX at the comparison's alpha */
	/* The runs it takes: those of comparisons from runs_since on (its own id when fresh,
	 * made with --fresh; 0: every stored run). Not known before schema 11. */
	int64_t runs_since;
	bool runs_since_known, fresh;
	/* The tolerances it judged with (tolerance, count-tolerance); NAN before schema 12. */
	double tolerance, count_tolerance;
	/* Its metrics and primary lists as configured (bench_config); NULL before schema 12.
	 * store_plan_read() allocates them: store_plan_release(). */
	char *metrics, *primary;
};
/* Records p for comparison_id and benchmark_id, once. Returns 0 or RP_EINTERNAL. */
int store_plan_insert(struct store *st, int64_t comparison_id, int64_t benchmark_id,
		      const struct store_plan *p);
/* comparison_id's plan for benchmark_id: 0 and *p, 1 when it recorded none, or RP_EINTERNAL. */
int store_plan_read(struct store *st, int64_t comparison_id, int64_t benchmark_id,
		    struct store_plan *p);
void store_plan_release(struct store_plan *p);

/*
 * Whether comparison_id planned the benchmark called bench otherwise than runs
 * min_runs..max_runs at alpha: 1 it did, 0 it did not (or recorded no plan), or
 * RP_EINTERNAL.
 */
int store_comparison_plan_differs(struct store *st, int64_t comparison_id, const char *bench,
				  size_t min_runs, size_t max_runs, double alpha);

/*
 * The newest comparison that made a run selected by f under another plan than runs
 * min_runs..max_runs at alpha (its looks spent alpha on them): 0 and *comparison_id (0 when
 * none did; runs of comparisons that recorded no plan count as the same), or RP_EINTERNAL.
 */
int store_run_other_plan(struct store *st, const struct store_run_filter *f, size_t min_runs,
			 size_t max_runs, double alpha, int64_t *comparison_id);

/*
 * The newest comparison made with --fresh (store_plan_insert()) that made a run selected by
 * f: 0 and *comparison_id (0 when none), or RP_EINTERNAL.
 */
int store_run_newest_fresh(struct store *st, const struct store_run_filter *f,
			   int64_t *comparison_id);

/*
 * The newest comparison that made a successful run selected by f without a value of
 * metric (it measured other metrics): 0 and *comparison_id (0 when every run has one), or
 * RP_EINTERNAL.
 */
int store_run_lacking(struct store *st, const struct store_run_filter *f, const char *metric,
		      int64_t *comparison_id);

/*
 * The values of metric over the successful non-warm-up runs selected by f, oldest first,
 * in *values (caller frees). Returns 0 or RP_EINTERNAL.
 */
int store_run_values(struct store *st, const struct store_run_filter *f, const char *metric,
		     double **values, size_t *n);
/*
 * The same values with the id of the run each came from (*run_ids[i] gave *values[i]),
 * oldest first; caller frees both arrays. Returns 0 or RP_EINTERNAL.
 */
int store_run_values_ids(struct store *st, const struct store_run_filter *f, const char *metric,
			 int64_t **run_ids, double **values, size_t *n);

/* One run as a script sees it: its id and how it ended. */
struct store_run_end {
	int64_t id;
	enum run_status status;
	int exit_code, signal;
	bool exit_known; /* false: not recorded (imported runs), exit_code and signal are 0 */
};
/*
 * Every non-warm-up run selected by f whatever its status (failed ones too), oldest
 * first, in *out (caller frees). Returns 0 or RP_EINTERNAL.
 */
int store_run_ends(struct store *st, const struct store_run_filter *f,
		   struct store_run_end **out, size_t *n);
/*
 * The complete pairs among the runs selected by f (its side is ignored): for each round of
 * a comparison in which both the baseline and the target run succeeded and have metric,
 * (*a)[i] and (*b)[i], oldest first. Arrays are the caller's to free.
 */
int store_run_pairs(struct store *st, const struct store_run_filter *f, const char *metric,
		    double **a, double **b, size_t *n);

/* Where a stored run's output is: bytes [offset, offset + length) of the log at path. */
struct store_run_log {
	int64_t run_id;
	char *path;
	int64_t offset, length;
};
/*
 * The oldest successful non-warm-up run selected by f that has a log, in *out (release it
 * with store_run_log_release()). Returns 0, 1 when there is none, or RP_EINTERNAL.
 */
int store_run_first_log(struct store *st, const struct store_run_filter *f,
			struct store_run_log *out);
void store_run_log_release(struct store_run_log *log);

/* Counts of successful and of failed (any other status) non-warm-up runs for f. */
int store_run_counts(struct store *st, const struct store_run_filter *f, size_t *ok,
		     size_t *failed);

/* A run that did not succeed, or succeeded with a note, for the warnings of a report. */
struct store_run_issue {
	int64_t id;
	char side;
	enum run_status status;
	int exit_code, signal;
	char *detail, *log_path;
	int64_t log_offset;
	bool warmup;
};
/* The failed runs and the successful runs with a note (warm-ups included) of a comparison
 * and benchmark, oldest first; caller frees with store_run_issues_free(). */
int store_run_issues(struct store *st, int64_t comparison_id, int64_t benchmark_id,
		      struct store_run_issue **out, size_t *n);
void store_run_issues_free(struct store_run_issue *runs, size_t n);

int store_verdict_save(struct store *st, int64_t comparison_id, int64_t benchmark_id,
		       const char *metric, bool primary, const char *verdict,
		       const struct verdict_result *r, size_t n_pairs, double q_bh);

/*
 * One transaction spanning several calls (an import: build, benchmarks and runs are
 * stored together or not at all). Inside it, call only functions that do not open a
 * transaction of their own: store_machine, store_revision, store_build_save,
 * store_benchmark, store_build_runs_delete, store_import_runs (store_run_insert opens
 * one). Each returns 0 or RP_EINTERNAL; rollback cannot fail (and accepts no open
 * transaction). Not nestable.
 */
int store_transaction_begin(struct store *st);
int store_transaction_commit(struct store *st);
void store_transaction_rollback(struct store *st);

/* Deletes every run (and its metric values) of a build: a re-import replaces the last. */
int store_build_runs_delete(struct store *st, int64_t build_id);

/*
 * Inserts nr_runs runs that are copies of *tmpl (its id is ignored), run i with the
 * metric values values[i * nr_metrics + k] named names[k]; non-finite values are skipped
 * (the run lacks that metric). Atomic on its own (a savepoint), and also inside
 * store_transaction_begin(). Returns 0 or RP_EINTERNAL.
 */
int store_import_runs(struct store *st, const struct store_run *tmpl, const char *const *names,
		      const double *values, size_t nr_metrics, size_t nr_runs);

enum run_status run_status_parse(const char *s);

/* A profiled run (profile = cct): the files it wrote live in a directory of their own. */
struct store_profile {
	int64_t id;
	int64_t build_id; /* the build that ran (for cct: the instrumented variant) */
	int64_t benchmark_id, machine_id;
	int64_t comparison_id; /* the comparison that took it; 0 = none */
	char kind[16];	       /* "cct", "io", or a counted run: "vg-ir", "vg-cache" */
	enum run_status status;
	char *detail;	       /* why the run was not ok; NULL when it was */
	char *path;	       /* cct: directory of the profile files; io: the profile */
	char *log_path;	       /* the run's output */
	int64_t started_at;    /* unix time */
};

/*
 * The failed, crashed and timed-out profiles of kind that one comparison took of a
 * benchmark, oldest first (for `show`: how its runs ended), in an array the caller frees
 * with store_profiles_free(). Returns 0 or RP_EINTERNAL.
 */
int store_profiles_failed_of(struct store *st, int64_t comparison_id, int64_t benchmark_id,
			     const char *kind, struct store_profile **out, size_t *n);

/* Inserts p (its id is ignored, then set). Returns 0 or RP_EINTERNAL. */
int store_profile_add(struct store *st, struct store_profile *p);

/*
 * The successful profiles of kind taken on (build, benchmark, machine), oldest first, in
 * an array the caller frees with store_profiles_free(). Returns 0 or RP_EINTERNAL.
 */
int store_profiles_find(struct store *st, int64_t build_id, int64_t benchmark_id,
			int64_t machine_id, const char *kind, struct store_profile **out,
			size_t *n);

/*
 * The successful profiles of kind of the benchmark called bench on the commit sha (any
 * machine), from the build that took the latest of them, oldest first. *n = 0 when there
 * are none. Free with store_profiles_free(). Returns 0 or RP_EINTERNAL.
 */
int store_profiles_of_revision(struct store *st, const char *sha, const char *bench,
			       const char *kind, struct store_profile **out, size_t *n);

void store_profiles_free(struct store_profile *p, size_t n);

/* Records metric = value for profile_id (a counted run's counts). Returns 0 or RP_EINTERNAL. */
int store_profile_value_set(struct store *st, int64_t profile_id, const char *metric,
			    double value);
/* The value of metric for profile_id: 0 and *value, 1 when none, or RP_EINTERNAL. */
int store_profile_value_get(struct store *st, int64_t profile_id, const char *metric,
			    double *value);

/*
 * Counter series of runs (profile = counters, docs/counters.md). store_run_counters_save()
 * stores every series of rs for a run (replacing series of the same names). Returns 0 or
 * RP_EINTERNAL.
 */
int store_run_counters_save(struct store *st, int64_t run_id, const struct run_samples *rs);

/* A run with its counter series. */
struct store_counter_run {
	int64_t run_id, comparison_id;
	char side; /* 'A' or 'B' */
	struct run_samples samples;
};

/*
 * The successful runs selected by f that have counter series, oldest first (free with
 * store_counter_runs_free()). Returns 0 or RP_EINTERNAL.
 */
int store_run_counters(struct store *st, const struct store_run_filter *f,
		       struct store_counter_run **out, size_t *n);
/*
 * The successful non-warm-up runs of benchmark `bench` at revision `sha` that have counter
 * series: those of the build of the latest such run. None is not an error (*n = 0).
 */
int store_counter_runs_of_revision(struct store *st, const char *sha, const char *bench,
				   struct store_counter_run **out, size_t *n);
void store_counter_runs_free(struct store_counter_run *runs, size_t n);

/*
 * The newest comparison of (base build, target build) with `status` ("done", ...) made on
 * machine `machine_id` (the one it recorded; before schema 13, that of its newest run): 0
 * and *id, 1 when there is none, RP_EINTERNAL. Another machine's verdict is not this
 * machine's answer: on a shared store it would be shown in place of measuring here.
 */
int store_comparison_latest(struct store *st, int64_t base_build, int64_t target_build,
			    const char *status, int64_t machine_id, int64_t *id);

/* A stored verdict (the verdicts table), with its benchmark's name. */
struct store_verdict {
	char *bench, *metric;
	char *command; /* the benchmark's command as stored (run_output_identity()) */
	bool primary;
	char verdict[16]; /* "worse", "better", "equal", "undecided", "unmeasured" */
	double ratio, ci_lo, ci_hi, p; /* NAN when not stored */
	size_t n_a, n_b;
};
/*
 * The verdicts of a comparison in the order they were saved. Free with
 * store_verdicts_free(). Returns 0 or RP_EINTERNAL.
 */
int store_comparison_verdicts(struct store *st, int64_t comparison_id,
			      struct store_verdict **out, size_t *n);
void store_verdicts_free(struct store_verdict *v, size_t n);

/*
 * The values of metric over every successful non-warm-up run of build_id on machine_id of
 * the benchmark called bench with command `command` as stored (NULL: any command), of any
 * comparison, and over its successful counted runs under valgrind for ir and sim-cycles,
 * in *values (caller frees; unordered). Returns 0 or RP_EINTERNAL.
 */
int store_build_metric_values(struct store *st, int64_t build_id, int64_t machine_id,
			      const char *bench, const char *command, const char *metric,
			      double **values, size_t *n);

/*
 * Logs kept in the database (store_logs.c), zstd-compressed, so that a report built
 * elsewhere from a shared store has them: a run's output (saved with the run by
 * store_run_insert() when run->log_data is set) and a build's. The caller caps them (a
 * run's by log-limit); STORE_LOG_MAX_BYTES is what a read accepts. _save returns 0 or
 * RP_EINTERNAL; _get appends the log to sb and returns 0, 1 when none is stored, or
 * RP_EINTERNAL. store_logged_runs(): every run with a stored log, by id, sorted (caller
 * frees *ids): one question for a whole report, not one per comparison (a round trip
 * each on PostgreSQL).
 */
#define STORE_LOG_MAX_BYTES ((int64_t)1 << 30)
int store_run_log_save(struct store *st, int64_t run_id, const void *data, size_t len);
int store_build_log_save(struct store *st, int64_t build_id, const void *data, size_t len);
int store_run_log_get(struct store *st, int64_t run_id, struct strbuf *sb);
int store_build_log_get(struct store *st, int64_t build_id, struct strbuf *sb);
int store_logged_runs(struct store *st, int64_t **ids, size_t *n);

/* What store_push() copied (added) and found there already (present). */
struct store_push_stats {
	size_t builds_added, builds_present;
	size_t comparisons_added, comparisons_present;
	size_t comparisons_running; /* left for a later push, with their runs */
	size_t runs_added, runs_present;
	size_t profiles_added, profiles_present;
	size_t dynamic_added, dynamic_present;
};

/*
 * Copies the results of `from` into `to` (store_push.c): machines, revisions, benchmarks
 * and builds found by their keys or added, comparisons that are not running with their
 * runs, values, counter series and verdicts, profiles and their counts, dynamic data;
 * not the predictors (train on the target). Idempotent: what an earlier push of the same
 * store copied is found (the target's table `pushed`) and not copied again. One
 * transaction of `to`: all or nothing. Returns 0 or RP_EINTERNAL after an error line.
 */
int store_push(struct store *from, struct store *to, struct store_push_stats *stats);

#endif
