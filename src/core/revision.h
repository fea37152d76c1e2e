#ifndef REVPERF_CORE_REVISION_H
#define REVPERF_CORE_REVISION_H

#include "util/common.h"

/* A git repository opened through libgit2. */
struct repo;

/* One resolved revision. */
struct revision {
	char sha[41];
	char parent[41]; /* the first parent; "" for a root commit */
	char *expr;    /* what the user typed */
	char *summary; /* first line of the message */
	int64_t commit_time;
};
void revision_release(struct revision *rev);

/*
 * Opens the repository containing dir (searching upwards, as git does; GIT_DIR and the
 * like are ignored). Returns 0, RP_EINPUT when dir is not inside a git work tree,
 * RP_EINTERNAL otherwise. Free with repo_close(). Side effect: removes from the process's
 * environment the variables that choose git's repository (GIT_DIR, GIT_WORK_TREE,
 * GIT_INDEX_FILE, ...), so that git run by builds and benchmarks in a worktree finds the
 * worktree's own repository, never the user's.
 */
int repo_open(const char *dir, struct repo **out);
/* Whether dir is inside a git repository (nothing printed). */
bool repo_dir_in_git(const char *dir);
void repo_close(struct repo *r);

/* The version of the git library, e.g. "libgit2 1.5.1" (static storage). */
const char *repo_library_version(void);
/* The root of the work tree (owned by r). */
const char *repo_workdir(const struct repo *r);

/*
 * Resolves any revision expression git accepts (sha, branch, tag, HEAD~3, origin/main) to
 * a commit. Returns 0 or RP_EINPUT with an error naming expr.
 */
int repo_resolve(struct repo *r, const char *expr, struct revision *out);

/*
 * Checks the commit out into dir (which must not exist) as a repository of its own,
 * dir/.git, private to revperf: HEAD detached at the commit, an index that matches the
 * files, the user's tags (as they are now), and the user's objects borrowed through
 * objects/info/alternates, never copied. So git in dir sees that commit (`git rev-parse
 * HEAD`, `git describe`), and what git writes there (tags, config, notes, objects) stays in
 * dir/.git; the user's repository, index and work tree are never written. Checked out into
 * dir.tmp-<pid> first and renamed, so that an interrupted checkout never leaves a partial
 * tree that looks complete. Not safe for two processes with the same dir: the caller
 * serializes them (build_ensure() holds a lock per worktree). Returns 0, RP_EINPUT when
 * the repository lacks an object of the commit (a partial clone, a damaged repository: the
 * error names it), or RP_EINTERNAL.
 */
int repo_checkout(struct repo *r, const struct revision *rev, const char *dir);

/*
 * Points the private repository of a worktree made by repo_checkout() at the user's
 * objects again, when the user's repository moved since the checkout (the path in
 * objects/info/alternates is absolute); nothing is written when it did not. Returns 0 or
 * RP_EINTERNAL.
 */
int repo_worktree_relink(struct repo *r, const char *dir);

/*
 * The commits of a range for `history`, oldest first, each with its first parent: "A..B"
 * (reachable from B, not from A) or a single revision B (B and its ancestors). first_parent
 * follows only first parents (the mainline); otherwise side branches are included in
 * topological order. limit > 0 keeps the newest `limit` commits. Every entry's expr is
 * its short sha. Returns 0 (an empty range gives *n = 0), or RP_EINPUT after an error
 * naming the range. Free with revisions_free().
 */
int repo_range(struct repo *r, const char *range, bool first_parent, size_t limit,
	       struct revision **out, size_t *n);
void revisions_free(struct revision *revs, size_t n);

/* What HEAD is, for a person: the branch's short name ("main"), or "HEAD (detached at
 * 0123456789ab)", or "HEAD" when the repository has no commit yet; appended to out. */
void repo_head_name(struct repo *r, struct strbuf *out);

/* Whether the reference (e.g. "refs/remotes/origin/HEAD") exists. */
bool repo_ref_exists(struct repo *r, const char *refname);

/* The best common ancestor of commits a and b (shas). Returns 0, or RP_EINPUT with an
 * error when they have none. */
int repo_merge_base(struct repo *r, const char *a, const char *b, char out[41]);

/*
 * The paths (relative to the work tree's root) that differ between the trees of commits a
 * and b (shas): added, deleted or modified files, both names of a file whose type changed,
 * no rename detection. In an array the caller frees with repo_paths_free(). Returns 0, or
 * RP_EINPUT after an error when a sha is not a commit of the repository, RP_EINTERNAL.
 */
int repo_diff_paths(struct repo *r, const char *a, const char *b, char ***out, size_t *n);
void repo_paths_free(char **paths, size_t n);

/*
 * The first parent of commit `sha` (40 hex digits) into parent. Returns 0, 1 when the
 * commit has no parent, RP_EINPUT (after error() unless quiet) when sha is not a commit of
 * the repository.
 */
int repo_first_parent(struct repo *r, const char *sha, char parent[41], bool quiet);

#endif
