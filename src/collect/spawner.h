#ifndef REVPERF_COLLECT_SPAWNER_H
#define REVPERF_COLLECT_SPAWNER_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "collect/spawn_protocol.h"

/*
 * revperf's end of revperf-spawn (collect/spawn/revperf_spawn.c), the small process that
 * forks and reaps the benchmarks, so that their max RSS does not include a copy of revperf's
 * own memory (see docs/measurement.md). Internal to the runner (collect/proc.c).
 *
 * One spawner per revperf process, started on first use and kept until revperf exits (it
 * sees end of file on its socket, or gets SIGKILL through PR_SET_PDEATHSIG when revperf
 * dies). That is process-global state by nature: the spawner is this process's child. Its
 * program is $REVPERF_SPAWN when set, else revperf-spawn beside the running executable, in
 * a build tree or installed (collect/helper_path.h). When it dies, the call that notices
 * prints an error and fails; the next spawner_submit() starts a new one. Not thread-safe;
 * PR_SET_PDEATHSIG ties the spawner to the
 * thread that started it, so call from a thread that outlives all runs.
 */

struct spawner_run {
	char *const *argv;    /* argv[0] is searched in PATH of the current environment */
	const char *cwd;      /* relative to the current directory; NULL = the current one */
	int stdin_fd, out_fd, err_fd; /* the child's stdin, stdout and stderr */
	/*
	 * -1, or the child's end of a socket pair: the child waits before its exec until
	 * revperf writes one byte on the other end (SPAWN_RUN_HOLD in
	 * collect/spawn_protocol.h).
	 */
	int hold_fd;
	/* perf_event counters to open on the child before its exec, as bits of enum
	 * perf_counter, and those that count user space only (perf_counters_request()) */
	uint32_t perf_mask, perf_user_only;
	/* No rchar and wchar for this run: /proc/<pid>/io is not opened (SPAWN_RUN_NO_IO). */
	bool no_io;
	/* "NAME=VALUE" strings set in the child's environment, replacing the current
	 * environment's NAME; NULL-terminated; NULL = none. */
	const char *const *env_set;
};

/*
 * The spawner's program into path, without starting it: for a command to check before it
 * does anything that its runs can start. Returns 0, or RP_EINPUT after an error naming
 * where it looked (helper_find()).
 */
struct strbuf;
int spawner_find(struct strbuf *path);

/*
 * Starts the spawner if none runs, then hands it run, without waiting: it forks the child
 * in its own process group, with the current environment, directory and umask, and
 * releases it to its exec at once (after opening the counters asked for), or, with
 * run->hold_fd, once revperf wrote a byte on the hold socket. When an earlier run is not
 * finished yet (its spawner_wait_escapes() not called), the spawner starts this one right
 * after that one's exit, only if that one exited with status 0 or was cancelled itself;
 * else this one is cancelled (SPAWN_RUN_AFTER_OK). Returns 0, or -1 on an internal failure
 * (printed: the spawner cannot be started or died).
 */
int spawner_submit(const struct spawner_run *run);

/*
 * Waits for the start of the oldest submitted run whose start was not read yet: sets *pid
 * (also its process group id) and *start_ns, the spawner's CLOCK_MONOTONIC time just
 * before the fork. Returns 0; 1 when it was cancelled (the run before it did not exit with
 * status 0); -1 on an internal failure (printed: the spawner died, fork failed).
 */
int spawner_started(pid_t *pid, int64_t *start_ns);

/*
 * The spawner's socket, to poll while a child runs: readable when the spawner reported the
 * child's end (then call spawner_wait(), which will not block) or died. -1 when none runs.
 */
int spawner_fd(void);

/* What the spawner reports about a child it reaped. */
struct spawner_exit {
	int wstatus;
	struct rusage ru; /* of the child and the descendants it waited for: only the times,
			     maxrss, faults and context switches are filled in */
	bool group_left;  /* its process group had other members when it was reaped (they
			     were sent SIGKILL before) */
	bool io_valid;	  /* rchar and wchar were read from /proc/<pid>/io */
	int64_t rchar, wchar;
	int64_t end_ns; /* the spawner's CLOCK_MONOTONIC time once it saw the exit */
	/* The child could not start: enum spawn_stage (0: it exec'd) and the errno. */
	int start_stage, start_err;
};

/*
 * Waits for the spawner's report on pid, which it sends once pid exited and was reaped
 * (after a SIGKILL to the rest of pid's process group): the notification of the exit.
 * Fills *ex when not NULL.
 * Returns 0, or -1 (printed, unless no spawner runs because its death was already reported).
 */
int spawner_wait(pid_t pid, struct spawner_exit *ex);

/* What the spawner reports, after the exit, about processes that left the child's group. */
struct spawner_escapes {
	int killed; /* processes below the spawner, outside the child's process group
		       (setsid, setpgid), alive once the child was reaped: sent SIGTERM,
		       SIGKILL after SPAWN_ESCAPED_GRACE_MS */
	int left;   /* of those, still alive after SIGKILL for SPAWN_ESCAPED_KILL_MS */
	/* The counters of the request, read once the group was gone (perf_counters_fill()). */
	uint32_t perf_read;
	uint64_t perf[SPAWN_PERF_MAX][3];
};

/*
 * Waits for the spawner's second report on pid, sent after the one spawner_wait() reads:
 * the processes that had left pid's group were found and killed (up to about 2 s when they
 * ignore SIGTERM), and fills *esc when not NULL. Every spawner_wait() that returned 0 is
 * to be followed by this call; spawner_started() reads a report left unread. Returns 0, or -1
 * (printed, as spawner_wait()).
 */
int spawner_wait_escapes(pid_t pid, struct spawner_escapes *esc);

/*
 * The CPUs of every spawner started from now on, and so of every benchmark (NULL: those of
 * revperf when it starts one, as inherited). Stops a running spawner. Process-global, as
 * the spawner.
 */
void spawner_cpus(const cpu_set_t *set);

/* True while a spawner runs (its death not yet noticed). */
bool spawner_running(void);

/* Stops the spawner and reaps it; the next spawner_submit() starts a new one. Safe anytime. */
void spawner_stop(void);

#endif
