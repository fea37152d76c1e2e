#ifndef REVPERF_CORE_WORKTREE_H
#define REVPERF_CORE_WORKTREE_H

#include <stdbool.h>

/* What keeps two revperf processes from checking out or building one worktree at once. */

/*
 * Takes the lock of a worktree, the file worktree.lock (created when needed, kept after:
 * removing a lock file would let a third process lock another file of the same name),
 * with flock, and writes the caller's pid into it. When another process holds it, prints
 * once which one (`what` says what it does there, e.g. "building 1a2b3c4d5e6f") and waits.
 * The lock is held until worktree_unlock() or the exit, and not inherited by children.
 * Returns 0 with *fd the lock, RP_EINTERRUPT when the user interrupted the wait
 * (interrupt_requested()), or RP_EINTERNAL with an error. *fd is -1 unless 0 is returned.
 */
int worktree_lock(const char *worktree, const char *what, int *fd);
/*
 * The lock of worktree_lock() without waiting (revperf gc, before it removes a worktree):
 * 0 with *fd the lock, 1 when another process holds it (the worktree is in use), or -1
 * with an error. Without create, a missing lock file is 0 with *fd -1 (nobody locked it;
 * nothing is written: a dry run). *fd is -1 unless 0 is returned.
 */
int worktree_trylock(const char *worktree, bool create, int *fd);
/* Releases a lock of worktree_lock(); -1 is fine. */
void worktree_unlock(int fd);

/*
 * Removes the directories NAME.tmp-PID in dir (checkouts interrupted by a kill or a crash,
 * see repo_checkout()) whose process PID no longer exists. Failures are printed and
 * otherwise ignored: a leftover costs disk space, nothing else.
 */
void worktree_remove_stale(const char *dir);

#endif
