#ifndef REVPERF_COLLECT_SPAWN_PROTOCOL_H
#define REVPERF_COLLECT_SPAWN_PROTOCOL_H

/*
 * The wire format between revperf (collect/spawner.c) and revperf-spawn
 * (collect/spawn/revperf_spawn.c), the small process that forks the benchmarks. Both are
 * built from the same tree; the hello message carries SPAWN_PROTOCOL_VERSION so that a
 * stale revperf-spawn is refused with a clear error instead of misread.
 *
 * The channel is an AF_UNIX stream socket, fd SPAWN_SOCKET_FD in revperf-spawn. Every
 * message is a fixed-size struct; a run request is followed by payload_len bytes of
 * NUL-terminated strings and carries four descriptors (SCM_RIGHTS, on the header): stdin,
 * stdout, stderr and the directory to start from; a held run (SPAWN_RUN_HOLD) a fifth,
 * the socket it is released through.
 *
 * One run at a time, one request and, in the common case, two wake-ups of revperf (the
 * child runs meanwhile): the spawner times the run itself, as close to the fork and to the
 * exit as it can, so that the wall time carries no round trip between the processes.
 *   revperf                                  revperf-spawn
 *                                      <-    SPAWN_REP_HELLO (once, at the start)
 *   SPAWN_REQ_RUN (argv, env, fds)     ->    takes the start time, starts the child in
 *                                            its memory (CLONE_VM | CLONE_VFORK), which
 *                                      <-    sends SPAWN_REP_SPAWNED (pid, start time) on
 *                                            the spawner's socket itself, before its exec
 *                                            (the spawner does when it could not fork),
 *                                            opens its /proc/self/io and the counters asked
 *                                            for, passes them to the spawner and execs:
 *                                            it waits for nothing (a held run waits for
 *   (held: attaches what needs the pid at     one byte on its hold socket first); the
 *   the exec, then sends that byte)           spawner, resumed at the exec, reads them
 *   polls the spawner's socket (and           on SIGCHLD: takes the end time, reads
 *   relays the child's output)                /proc/<pid>/io of the zombie, SIGKILLs the
 *                                            rest of its group, reaps it with wait4()
 *                                      <-    SPAWN_REP_REAPED (status, times, rusage, io)
 *                                            finds the processes below it that left the
 *                                            child's group (setsid, setpgid): SIGTERM,
 *                                            SIGKILL after a grace period; with counters,
 *                                            waits until the group is gone, reads them
 *                                      <-    SPAWN_REP_ESCAPED (how many, how many left,
 *                                            the counters)
 * When nothing is left below the spawner once the child is reaped (the common case),
 * REAPED and ESCAPED go in one write, and when the child exited with status 0, a run
 * request already waiting (SPAWN_RUN_AFTER_OK) is read and started right after it. revperf
 * sends signals to the child's group itself (timeout, interrupt).
 * revperf-spawn exits when the socket reaches end of file, or when revperf dies (its
 * parent-death signal, SPAWN_PARENT_DEATH_SIGNAL), after killing every process below it.
 */

#include <signal.h>
#include <stdint.h>

/*
 * 1: the first; 2: SPAWN_REP_ESCAPED after every REAPED (processes that left the child's
 * group); 3: stdout and stderr as two descriptors (SPAWN_FD_ERR, for output = discard);
 * 4: the spawner times the run and the child passes its descriptors (the runner, whose
 * branch also called its protocol 3), requests submitted ahead (SPAWN_RUN_AFTER_OK), no
 * sync socket but a hold socket for the runs that need one (SPAWN_RUN_HOLD), with 3's
 * separate stderr; 5: SPAWN_RUN_NO_IO.
 */
#define SPAWN_PROTOCOL_VERSION 5
/* The socket's descriptor number in revperf-spawn; argv[1] must be SPAWN_ARG_MAGIC. */
#define SPAWN_SOCKET_FD 3
#define SPAWN_ARG_MAGIC "--revperf-spawner"
/* argv, environment and directory together; ARG_MAX on Linux is at most a quarter of this. */
#define SPAWN_PAYLOAD_MAX (UINT64_C(16) << 20)
#define SPAWN_STRINGS_MAX (1u << 20)
/*
 * What revperf-spawn gets when revperf dies (PR_SET_PDEATHSIG): caught, so that it can kill
 * the processes of the run before it exits; SIGKILL would leave the child's descendants
 * running. revperf never sends it.
 */
#define SPAWN_PARENT_DEATH_SIGNAL SIGUSR1
/* How long SIGKILLed members of the child's group may take to disappear, when counters
 * wait for them (their counts are added as each task exits). */
#define SPAWN_GROUP_GONE_MS 1000
/*
 * The perf_event counters a request may ask for, in the order of enum perf_counter
 * (collect/proc.h): task-clock, instructions, cycles, cache-misses, branch-misses.
 */
#define SPAWN_PERF_MAX 5
/* How long processes that left the child's group have between SIGTERM and SIGKILL. */
#define SPAWN_ESCAPED_GRACE_MS 1000
/* How long SIGKILL is repeated on them (they may fork meanwhile) before giving up. */
#define SPAWN_ESCAPED_KILL_MS 1000

enum spawn_request_type { SPAWN_REQ_RUN = 1 };
enum spawn_reply_type {
	SPAWN_REP_HELLO = 1,
	SPAWN_REP_SPAWNED,
	SPAWN_REP_REAPED,
	SPAWN_REP_ESCAPED, /* follows every REAPED */
};

/*
 * The descriptors of a run request, in this order; SPAWN_FD_HOLD only with SPAWN_RUN_HOLD
 * (SPAWN_FD_COUNT - 1 descriptors without).
 */
enum spawn_fd {
	SPAWN_FD_STDIN,
	SPAWN_FD_OUT,
	SPAWN_FD_ERR,
	SPAWN_FD_DIR,
	SPAWN_FD_HOLD,
	SPAWN_FD_COUNT
};

struct spawn_request {
	uint32_t type;
	uint32_t umask;
	/*
	 * Then payload_len bytes: the directory to change to (relative to SPAWN_FD_DIR; empty:
	 * stay there), argc argument strings and envc environment strings, NUL-terminated.
	 */
	uint32_t argc;
	uint32_t envc;
	uint64_t payload_len;
	/* The perf_event counters to open on the child (bit i: counter i of SPAWN_PERF_MAX),
	 * and those of them that count user space only (perf_event_paranoid). */
	uint32_t perf_mask;
	uint32_t perf_user_only;
	uint32_t flags; /* enum spawn_run_flags */
	uint32_t pad;
};

enum spawn_run_flags {
	/*
	 * Sent while an earlier run is not finished (revperf submits the next run while one
	 * runs, so that the spawner starts it right after the exit): start it only if the
	 * request before it was not a run that failed to exit with status 0; else answer
	 * SPAWNED with err ECANCELED. A cancelled request does not count as a run: the one
	 * after it starts (revperf made it knowing of the failure).
	 */
	SPAWN_RUN_AFTER_OK = 1,
	/*
	 * The child waits before its exec (after SPAWNED, its stdio and its directory) until
	 * revperf writes one byte on the hold socket (SPAWN_FD_HOLD), so that revperf can
	 * attach to it what must be in place at the exec (a sampling profile's events); end of
	 * file there instead (revperf gave up on the run) ends it with SPAWN_STAGE_SETUP,
	 * ECANCELED. The spawner's clock still starts at the fork: revperf takes the start of
	 * a held run's wall time itself, at the release (same CLOCK_MONOTONIC).
	 */
	SPAWN_RUN_HOLD = 2,
	/*
	 * No /proc/<pid>/io for this run (no metric asked reads rchar or wchar): the child
	 * does not open /proc/self/io before its exec (inside its wall time), the spawner
	 * neither reads nor closes it, and REAPED has io_valid 0.
	 */
	SPAWN_RUN_NO_IO = 4,
};

struct spawn_reply {
	uint32_t type;
	int32_t err;	 /* errno of a failed fork or wait4 (ESCAPED: of reading /proc), else 0;
			    SPAWNED: ECANCELED for a run cancelled by SPAWN_RUN_AFTER_OK */
	int32_t pid;	 /* the child (ESCAPED: the one reaped); HELLO: revperf-spawn itself */
	int32_t wstatus; /* REAPED: as from wait4; HELLO: SPAWN_PROTOCOL_VERSION */
	/*
	 * REAPED: 1 when the child's process group still had members (alive, or killed and
	 * not yet reaped) right after the child was reaped: processes that outlived it.
	 */
	int32_t group_left;
	int32_t io_valid; /* REAPED: rchar and wchar were read from /proc/<pid>/io */
	/*
	 * CLOCK_MONOTONIC: SPAWNED: taken just before the fork; REAPED: just after the exit was
	 * seen (SIGCHLD). The run's wall time is their difference, as hyperfine's is the time
	 * around its fork and wait.
	 */
	int64_t time_ns;
	/* REAPED: the child could not start (enum spawn_stage, 0: it exec'd) and its errno. */
	int32_t start_stage, start_err;
	/* REAPED: the child's rusage (it and the descendants it waited for). */
	int64_t utime_us, stime_us;
	int64_t maxrss_kb;
	int64_t minflt, majflt;
	int64_t nvcsw, nivcsw;
	/* REAPED: /proc/<pid>/io of the zombie (it and the descendants it waited for). */
	int64_t rchar, wchar;
	/*
	 * ESCAPED: processes below revperf-spawn, outside the child's process group, that were
	 * alive once the child was reaped (they left the group with setsid or setpgid): how
	 * many were found and killed, and how many were still alive after SIGKILL.
	 */
	int32_t escaped, escaped_left;
	/*
	 * ESCAPED: the counters of the request, read once the child's group was gone: bit i of
	 * perf_read says counter i was opened and read; perf[i] is its value, time enabled and
	 * time running (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING).
	 */
	uint32_t perf_read;
	uint32_t perf_pad;
	uint64_t perf[SPAWN_PERF_MAX][3];
};

/*
 * What a child tells the spawner (between fork and exec) on the children's socket (one
 * pair for the spawner's life, close-on-exec in the child; read once the child is gone):
 * first its /proc/self/io and the counters it opened on itself
 * (SPAWN_CHILD_FDS, the descriptors as SCM_RIGHTS, the io one first, then one per bit of
 * perf in increasing order), so that the spawner holds them without the child waiting for
 * anything; then, only if it could not start, why (SPAWN_CHILD_FAILED).
 */
enum spawn_stage { SPAWN_STAGE_SETUP = 1, SPAWN_STAGE_CWD, SPAWN_STAGE_EXEC };
enum spawn_child_kind { SPAWN_CHILD_FDS = 1, SPAWN_CHILD_FAILED };
struct spawn_child_report {
	int32_t kind;  /* enum spawn_child_kind */
	int32_t stage; /* FAILED: enum spawn_stage */
	int32_t err;   /* FAILED: the errno */
	int32_t io;    /* FDS: 1 when /proc/self/io is the first descriptor */
	uint32_t perf; /* FDS: the counters that follow (bits of SPAWN_PERF_MAX) */
};

#endif
