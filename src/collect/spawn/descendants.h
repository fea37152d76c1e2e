#ifndef REVPERF_COLLECT_SPAWN_DESCENDANTS_H
#define REVPERF_COLLECT_SPAWN_DESCENDANTS_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * The live processes below revperf-spawn, read from /proc. revperf-spawn is the child
 * subreaper of the benchmarks, so every process a benchmark started that is still alive
 * is below it (its parent, or its parent's parent, ..., is revperf-spawn), whatever
 * process group or session it moved to. Part of revperf-spawn: no malloc and no stdio
 * (the scan maps its tables and unmaps them before it returns, so that the spawner's
 * resident memory, the floor of every benchmark's max RSS, does not grow). Not
 * thread-safe; one scan at a time.
 */

/* The distinct pids signalled over several descendants_signal() calls. */
#define PID_SEEN_MAX 1024
struct pid_seen {
	int nr;	   /* stored in pid[] */
	int count; /* distinct pids seen: nr, plus those that did not fit (counted each time) */
	pid_t pid[PID_SEEN_MAX];
};

/* An empty set, mapped (not on the stack, see descendants.c); NULL when mmap fails. */
struct pid_seen *pid_seen_new(void);
/* Unmaps it; NULL is fine. */
void pid_seen_free(struct pid_seen *seen);

/*
 * Sends sig (0: none, only counts) to every live process (not a zombie) below self whose
 * process group is not keep_pgid (0: every group). Each signalled pid is added to *seen
 * (NULL: none is kept). Returns the number of such processes, or -1 with errno set when
 * /proc cannot be read or the tables cannot be mapped. A process that forks after the
 * scan is not seen: callers repeat until it returns 0.
 */
int descendants_signal(pid_t self, pid_t keep_pgid, int sig, struct pid_seen *seen);

/* True when self has a child (alive, or a zombie not yet reaped). */
bool descendants_any(void);

#endif
