#ifndef REVPERF_CORE_GC_H
#define REVPERF_CORE_GC_H

/*
 * revperf gc: the worktrees (builds) and log files of the state directory that no stored
 * result needs, or whose results are all older than a given age, removed; and the folders
 * of profiles/ and dynamic/ whose owner (a comparison, a row of dynamic data) is not in
 * the store. The database, the lock files, report/, ci/ and everything else stay;
 * symbolic links are never followed (a link itself is not removed either).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/build.h"
#include "util/common.h"

struct gc_options {
	ns_t older_than_ns; /* with older_than: also what only results older than this need */
	bool older_than;
	bool dry_run; /* list, remove nothing */
	/* Files no row points to that changed this recently are kept: the log of a run that a
	 * running comparison has not stored yet. */
	ns_t grace_ns;
};

enum gc_kind {
	GC_WORKTREE,	/* worktrees/<sha>[-variant]: a checkout and its build */
	GC_LOG,		/* a file below logs/ */
	GC_LOG_DIR,	/* a folder below logs/ emptied (logs/runs/<comparison>) */
	GC_PROFILES,	/* profiles/<comparison>: the files of a comparison the store lacks */
	GC_DYNAMIC,	/* dynamic/<sha12>/<benchmark>: dynamic data no stored row points to */
	GC_DYNAMIC_DIR, /* dynamic/<sha12> emptied */
};
enum gc_reason {
	GC_UNUSED, /* no stored result refers to it */
	GC_OLD,	   /* only results older than --older-than do */
};
struct gc_item {
	char *path;
	enum gc_kind kind;
	enum gc_reason reason;
	uint64_t bytes, files, dirs; /* sizes of the regular files; dirs includes itself */
};
struct gc_result {
	struct gc_item *items; /* what was removed (or, with dry_run, would be) */
	size_t nr, alloc;
	uint64_t bytes, files, dirs;
	size_t in_use;	 /* worktrees skipped: another process holds their lock */
	size_t recent;	 /* orphan files skipped: changed within the grace period */
	size_t recent_dirs; /* orphan profiles/ and dynamic/ folders skipped: the same */
	size_t failed;	 /* items that could not be removed (an error line each) */
};
void gc_result_release(struct gc_result *res);

/*
 * Collects sd's garbage: worktrees/ entries that are no build a stored run, comparison or
 * profile refers to, logs/ files no row points to, and with older_than those whose newest
 * result is older; profiles/<id> folders of comparisons not in the store and dynamic/
 * folders no row of dynamic data points to, when no stored row points into them either
 * (older_than does not apply: the store keeps no copy of their files). A worktree in use
 * (worktree_trylock()) is skipped, as are orphan logs and folders changed within
 * grace_ns. Fills res (release with gc_result_release()) also on failure. Returns 0, or
 * RP_EINTERNAL after an error (the store could not be read, the state directory's folders
 * are links, or something could not be removed: res says what was).
 */
int gc_collect(struct store *st, const struct state_dir *sd, const struct gc_options *opt,
	       struct gc_result *res);

/*
 * How many of the log files of a stored comparison are gone (removed by gc), of *total:
 * for show and report to say so. Returns 0, or RP_EINTERNAL after an error.
 */
int gc_comparison_logs_missing(struct store *st, int64_t comparison_id, size_t *missing,
			       size_t *total);

#endif
