#ifndef REVPERF_CORE_BUILD_H
#define REVPERF_CORE_BUILD_H

#include "core/revision.h"
#include "store/store.h"
#include "util/common.h"

/* The .revperf/ directory of a project: database, worktrees, logs. */
struct state_dir {
	char *root;      /* .../.revperf */
	char *db_path;   /* root/revperf.db */
	char *worktrees; /* root/worktrees */
	char *logs;      /* root/logs */
	/* Where the store's comparisons keep their files, <dir>/<comparison>/...: root/profiles
	 * and root/logs/runs for the state directory's own store, root/profiles/store-<id>
	 * and root/logs/runs/store-<id> for another (state_dir_bind_store). */
	char *profiles;
	char *run_logs;
};

/*
 * Creates (if needed) and checks the state directory: `dir` itself when given, else
 * project_root/.revperf. Returns 0, or RP_EINPUT with an error when it cannot be created
 * or written. Release with state_dir_release().
 */
int state_dir_open(const char *project_root, const char *dir, struct state_dir *out);
/* The paths of the state directory, as state_dir_open() names them, without touching it. */
void state_dir_locate(const char *project_root, const char *dir, struct state_dir *out);
void state_dir_release(struct state_dir *sd);
/*
 * Points sd->profiles and sd->run_logs at the files of the store st, opened from
 * location (its URL or file): the state directory's own store (its revperf.db) keeps
 * root/profiles/<comparison> and root/logs/runs/<comparison>; any other store gets
 * store-<first 12 digits of its identity>/ below them, since comparison numbers are a
 * store's and two stores used from one state directory would overwrite each other's
 * files. A command that writes makes the identity if the store has none (store_identity);
 * one that only reads (read_only) does not, and a store without one has written nothing
 * apart: root/profiles and root/logs/runs stay. Returns 0 or RP_EINTERNAL (the identity
 * could not be read or made).
 */
int state_dir_bind_store(struct state_dir *sd, struct store *st, const char *location,
			 bool read_only);
/* Whether sd->profiles is not root/profiles (sd is bound to another store than its own). */
bool state_dir_store_apart(const struct state_dir *sd);

/*
 * Makes sure rev is checked out in sd->worktrees/<sha> and built with command, once per
 * (commit, command, variant): a successful build recorded in the store is reused. A
 * variant (NULL or "" = none; "cct" = instrumented for profiling) has its own worktree,
 * sd->worktrees/<sha>-<variant>, so that it never overwrites the files of the build. The build runs in
 * the worktree with its output in sd->logs/build-<sha12>-<id>.log. On success *out is the
 * build row (release with store_build_release()). A failed build is an error naming its
 * log (RP_EBUILD: the project's problem, not revperf's), as is a build still running after
 * timeout_ns (0: no limit), killed with its process group; a revision the repository cannot
 * check out (an object missing) or a worktree that is not a directory RP_EINPUT;
 * RP_EINTERNAL otherwise.
 *
 * Each use fingerprints the programs in the worktree (binary/fingerprint.h) and checks them
 * against those the build recorded (docs/store.md "Build fingerprints"): none recorded (a
 * build made before schema 14), recorded now; the same, nothing said; others (built again
 * after the worktree was removed, not reproducibly, or rebuilt there by hand) with runs or
 * profiles stored, one warning line and *out is a new generation of the build, a new row
 * with no runs: the stored runs of the old programs are never pooled with runs of the new.
 */
int build_ensure(struct store *st, struct repo *repo, const struct state_dir *sd,
		 const struct revision *rev, const char *command, const char *variant,
		 ns_t timeout_ns, struct store_build *out);

/*
 * Whether b's worktree still holds the files b built: its stamp says that its last finished
 * build ran b's command (one worktree serves every build command of its commit, so a later
 * build with another command replaced them), and its programs are those b recorded (an
 * older generation's were built over: core/build.c). Reads only; false when it cannot tell.
 */
bool build_worktree_holds(const struct store_build *b);

#endif
