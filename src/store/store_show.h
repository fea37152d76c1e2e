#ifndef REVPERF_STORE_STORE_SHOW_H
#define REVPERF_STORE_STORE_SHOW_H

/*
 * Read-only look-ups of stored comparisons, for showing them again without running
 * anything (`revperf show`, a finished comparison asked for again). None of these writes.
 */
#include "collect/machine.h"
#include "store/store.h"

/* A stored comparison and the commits of its builds. Release with
 * store_comparison_info_release(). */
struct store_comparison_info {
	int64_t id;
	int64_t base_build, target_build;
	char *base_label, *target_label; /* as the command was given them; may be NULL */
	char base_sha[41], target_sha[41]; /* "" for --cmd-a/--cmd-b builds */
	char *build_command;		   /* the base build's command */
	char *target_command;		   /* the target build's (--cmd-b's command) */
	uint64_t seed;
	double alpha;
	char status[16]; /* "running", "done", "interrupted", "failed", "abandoned" */
	/* of its latest run, else of its counted runs, else of the newest run it may have
	 * reused (it ran none); 0 when none */
	int64_t machine_id;
};
void store_comparison_info_release(struct store_comparison_info *c);
/* The comparison id: 0 and *out, 1 when there is none, RP_EINTERNAL. */
int store_comparison_get(struct store *st, int64_t id, struct store_comparison_info *out);
/*
 * The newest comparison of (base build, target build), whatever its status: 0 and *id, 1
 * when there is none, RP_EINTERNAL.
 */
int store_comparison_newest(struct store *st, int64_t base_build, int64_t target_build,
			    int64_t *id);
/* The newest comparison of two revisions, or with of_commands of two commands
 * (--cmd-a/--cmd-b): 0 and *id, 1 none, <0. */
int store_comparison_last(struct store *st, bool of_commands, int64_t *id);
/*
 * The newest comparison of the builds (variant "") of commits base_sha and target_sha,
 * whatever their build command: 0 and *id, 1 when there is none, RP_EINTERNAL.
 */
int store_comparison_of_commits(struct store *st, const char *base_sha, const char *target_sha,
				int64_t *id);
/* A benchmark as a comparison measured it: its name and its stored command (the identity
 * of run_output_identity()). */
struct store_benchmark_def {
	int64_t id;
	char *name, *command;
};
/*
 * The benchmarks comparison id planned or judged, oldest first: 0 and *out, *n (free with
 * store_benchmark_defs_free()), or RP_EINTERNAL.
 */
int store_comparison_benchmarks(struct store *st, int64_t id, struct store_benchmark_def **out,
				size_t *n);
void store_benchmark_defs_free(struct store_benchmark_def *defs, size_t n);
/* The build id, read only: 0 and *out (release with store_build_release()), 1 when none,
 * RP_EINTERNAL. */
int store_build_get(struct store *st, int64_t id, struct store_build *out);
/* The build of commit sha with command and variant ("" the build itself), read only: 0
 * and *out (release with store_build_release()), 1 when none, RP_EINTERNAL. */
int store_build_of_commit(struct store *st, const char *sha, const char *command,
			  const char *variant, struct store_build *out);
/* The benchmark row of (name, command), read only: 0 and *id, 1 when none, RP_EINTERNAL. */
int store_benchmark_find(struct store *st, const char *name, const char *command, int64_t *id);
/* The stored machine id: 0 and *m, 1 when none, RP_EINTERNAL. */
int store_machine_get(struct store *st, int64_t id, struct machine_info *m);
/* Runs (warm-ups included) and comparisons stored: for reports and tests of reuse. */
int store_count_runs(struct store *st, int64_t comparison_id, size_t *runs);

#endif
