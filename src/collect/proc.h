#ifndef REVPERF_COLLECT_PROC_H
#define REVPERF_COLLECT_PROC_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/common.h"
#include "util/interrupt.h"

struct strbuf;

/* The outcome of one run. Only RUN_OK runs enter the statistics. */
enum run_status {
	RUN_OK = 0,
	RUN_FAILED,      /* exited with a non-zero status */
	RUN_CRASHED,     /* killed by a signal it did not get from revperf */
	RUN_TIMEOUT,     /* killed by the process guard */
	RUN_NOT_STARTED, /* could not be started (command not found, cwd missing, ...) */
	RUN_INTERRUPTED, /* the user interrupted revperf during the run */
};
const char *run_status_name(enum run_status s);

/* perf_event counters; each may be unsupported on this machine (never reported as 0). */
enum perf_counter {
	PERF_TASK_CLOCK = 0,
	PERF_INSTRUCTIONS,
	PERF_CYCLES,
	PERF_CACHE_MISSES,
	PERF_BRANCH_MISSES,
	PERF_COUNTER_MAX
};

struct proc_metrics {
	ns_t wall_ns;
	ns_t user_ns, sys_ns; /* whole process tree (waited-for descendants included) */
	int64_t maxrss_kb;    /* largest RSS of any process in the tree */
	int64_t minflt, majflt;
	int64_t nvcsw, nivcsw;
	int64_t rchar, wchar; /* /proc/<pid>/io semantics, descendants included */
	bool io_valid;        /* false when /proc/<pid>/io could not be read */
	bool perf_supported[PERF_COUNTER_MAX];
	double perf_value[PERF_COUNTER_MAX]; /* task-clock in ns; others counts; scaled
						when multiplexed */
};

struct run_samples;   /* collect/sampler.h */
struct perf_recorder; /* collect/perf_sample.h */

/*
 * A run's timeout where none is configured (METHODS.md 1; compare, run, run --dynamic):
 * RUN_TIMEOUT_FIRST_NS before the program's time is known, then run_timeout_from() of it:
 * 10 x that time (a median, or one run's), at least RUN_TIMEOUT_MIN_NS.
 */
#define RUN_TIMEOUT_FIRST_NS (600LL * 1000000000LL)
#define RUN_TIMEOUT_MIN_NS (60LL * 1000000000LL)
static inline ns_t run_timeout_from(ns_t time_ns)
{
	return time_ns > RUN_TIMEOUT_MIN_NS / 10 ? time_ns * 10 : RUN_TIMEOUT_MIN_NS;
}

struct proc_spec {
	const char *command;  /* shell command line; exec'd directly when it has no shell syntax */
	const char *cwd;      /* working directory, NULL = inherit */
	const char *log_path; /* stdout and stderr (appended), NULL = /dev/null */
	/* Appended to log_path right before the run's output (result->log_offset says where
	 * the output starts); NULL = none. */
	const char *log_header;
	/* log_path is the user's (/dev/stderr): followed when a link; revperf's own logs are
	 * opened without following one (util/fsutil.h). */
	bool log_follow_links;
	/* At most this many bytes of output go to log_path (0 = no limit): the output then
	 * reaches it through a pipe that revperf copies (collect/output_relay.h), which keeps
	 * the beginning and the end of a longer output and counts the rest. */
	uint64_t log_limit_bytes;
	/* output = discard: the child's stdout goes to /dev/null, only its stderr to log_path
	 * (through the relay's pipe when there is one: revperf-counter lines then come from
	 * stderr) */
	bool discard_stdout;
	/* The child reads revperf's standard input (`revperf profile -- prog < in`: a program
	 * run once, as from the shell) instead of /dev/null (every benchmark run). */
	bool pass_stdin;
	ns_t timeout_ns;      /* 0 = no timeout */
	bool perf_counters;   /* open perf_event counters on the process tree */
	/* No metric reads rchar or wchar: /proc/<pid>/io is left alone (its open in the child
	 * is inside the wall time); the result's io_valid is false. */
	bool no_io;
	/* "NAME=VALUE" strings added to (or replacing in) the caller's environment for the
	 * child; NULL-terminated; NULL = the caller's environment as it is. */
	const char *const *env_set;
	/*
	 * Counter sampling (docs/counters.md): every sample_interval_ns, counters of the
	 * run's process group from /proc, plus the "revperf-counter NAME VALUE" lines the
	 * benchmark prints, go into *samples (its interval_s is set). The child's output then
	 * reaches log_path through a pipe that revperf copies, byte for byte.
	 */
	ns_t sample_interval_ns;     /* 0 = no sampling */
	struct run_samples *samples; /* filled when sampling (empty before); caller inits
					and releases */
	/*
	 * A sampling profile (collect/perf_sample.h): attached to the child before its exec,
	 * its ring buffers drained while it runs; the caller finishes it after proc_run().
	 * NULL = none.
	 */
	struct perf_recorder *recorder;
};

struct proc_result {
	enum run_status status;
	int exit_code;   /* valid for RUN_OK / RUN_FAILED */
	int signal;      /* valid for RUN_CRASHED / RUN_TIMEOUT (and RUN_INTERRUPTED) */
	char detail[256]; /* human-readable reason for anything but RUN_OK */
	pid_t pid;        /* the child, also its process group id; -1 when none was forked */
	bool stragglers_killed; /* processes of its group outlived it and were killed */
	/*
	 * Processes it started that had left its group (setsid, setpgid) and outlived it:
	 * found below the spawner, sent SIGTERM, SIGKILL after 1 s. escaped_left: of those,
	 * still alive after SIGKILL (1 s more).
	 */
	int escaped_killed, escaped_left;
	bool shell;       /* run with /bin/sh -c (false: exec'd directly) */
	struct proc_metrics m;
	/* Sampling only: */
	size_t counter_lines;           /* revperf-counter lines stored in the samples */
	size_t counter_lines_malformed; /* revperf-counter lines ignored (malformed) */
	bool samples_io_missing; /* /proc/<pid>/io unreadable: no read/write_bytes_per_s */
	/* Sampling or a log limit (the output relayed through a pipe): */
	bool output_cut; /* the output pipe was still open (held by a process that left the
			    group) when revperf stopped reading it */
	uint64_t output_bytes;	 /* what the run wrote to stdout and stderr */
	uint64_t output_dropped; /* of which not in the log (beyond log_limit_bytes) */
	/* Where the run's output starts in log_path (after spec->log_header); -1: no log. */
	int64_t log_offset;
	/* Submitted behind a run that did not exit with status 0 (proc_submit()): it never
	 * started, status is RUN_NOT_STARTED, and it is no run at all. */
	bool cancelled;
};

/*
 * Runs one fresh process of spec->command and measures it. The child is forked by the
 * spawner, a small helper process (revperf-spawn, see docs/measurement.md), so that its
 * max RSS does not include a copy of the caller's memory. The child runs in its own process
 * group, with the caller's current environment (plus spec->env_set), working directory and
 * umask; on timeout or interrupt the whole group is killed (SIGTERM, then SIGKILL after 1 s), and whatever is
 * left of the group when the child exits is killed and reaped (result->stragglers_killed);
 * processes that had left the group (setsid, setpgid) and are still alive then are killed
 * too (SIGTERM, then SIGKILL after 1 s: result->escaped_killed). proc_result_notes() says
 * so in words.
 * Wall time is the spawner's: from just before its fork of the child until it saw the
 * child's exit (as hyperfine times a command around its fork and wait); the other
 * metrics cover the child and the descendants it waited for.
 * With spec->sample_interval_ns > 0 (and spec->samples), the runner also samples the
 * counters of the child's process group every interval and stores the revperf-counter
 * lines of its output (t = seconds since the start; docs/counters.md); the output goes
 * through a pipe that revperf copies to the log file unchanged, read to its end after
 * the exit (at most 1 s more when a process that left the group holds it open:
 * result->output_cut). spec->samples must be empty: one per run. With
 * spec->log_limit_bytes, the output goes through that pipe too, and the log keeps at most
 * that many bytes of it (result->output_dropped counts the rest).
 * Returns 0 when the run happened (whatever its status, see result->status), -1 on an
 * internal failure (the spawner cannot be started or died, fork, socketpair, log file) with
 * an error printed.
 * Side effects on the calling process: the first call starts the spawner as its child,
 * which lives until the caller exits or calls proc_spawner_stop(); the caller becomes a
 * child subreaper (should the spawner die during a run, its children and their orphans
 * come back to the caller, which reaps those of the run's group). The spawner gets
 * PR_SET_PDEATHSIG SIGKILL (and passes it on to the child), so call it from a thread that
 * outlives all runs. SIGCHLD must not be SIG_IGN.
 * Not thread-safe (one spawner per process). proc_submit() then proc_finish().
 */
int proc_run(const struct proc_spec *spec, struct proc_result *result);

/*
 * A run handed to the spawner by proc_submit() and measured by proc_finish(): so that the
 * spawner starts the next run the moment the current one exits, while revperf stores the
 * current one. The spawner forks, times and reaps; revperf relays the output and guards.
 */
struct proc_handle;

/*
 * Hands spec's run to the spawner and returns without waiting for it to start. When a run
 * submitted before is not finished yet, the spawner starts this one right after that
 * one's exit, and only if that one exited with status 0 (or was cancelled itself); else
 * proc_finish() reports this one as cancelled. At most one run waits so (proc_finish() the older one before submitting a
 * third). A run whose output goes straight to its log file (no log limit, no sampling)
 * must not be submitted behind one writing to the same file: its log_header is written at
 * once, the others' when their output is relayed (in proc_finish()). spec and what it
 * points to must stay valid and unchanged until proc_finish(). Returns the handle, which
 * proc_finish() frees, or NULL after an internal failure (printed).
 */
struct proc_handle *proc_submit(const struct proc_spec *spec);

/*
 * Waits for the submitted run h and measures it, as proc_run() describes; frees h (NULL:
 * returns -1). Handles are finished in the order they were submitted. Returns 0 when the
 * run happened or was cancelled (result->cancelled), -1 on an internal failure (printed).
 */
int proc_finish(struct proc_handle *h, struct proc_result *result);

/*
 * Gives up on the submitted run h after an error or an interrupt: when it started, its
 * process group gets SIGKILL and is collected; nothing is measured, and nothing is
 * printed about a spawner whose death was already reported. Frees h (NULL is fine).
 */
void proc_abandon(struct proc_handle *h);

/*
 * Appends what the run left behind, for the run's detail: "processes it left running were
 * killed", "2 processes escaped the process group and were killed", each after "; " when
 * sb is not empty. Appends nothing when the run left nothing.
 */
void proc_result_notes(const struct proc_result *r, struct strbuf *sb);

/* Which perf counters this machine and kernel support for an unprivileged child. Cached. */
void proc_perf_probe(bool supported[PERF_COUNTER_MAX]);
/*
 * True when counter c is supported but only for user space (perf_event_paranoid >= 2 without
 * CAP_PERFMON): instructions and cycles then exclude the kernel. Cached.
 */
bool proc_perf_user_only(enum perf_counter c);
/* "task-clock", "instructions", ...; "unknown" for an out-of-range value. */
const char *perf_counter_name(enum perf_counter c);

/*
 * For tests: when on, a sampled run (spec->sample_interval_ns) waits for the spawner's
 * report on the exit, as on kernels without pidfd_open (< 5.3), instead of polling a pidfd
 * (runs without sampling always wait for the report).
 */
void proc_wait_fallback_force(bool on);

/*
 * Whether runs can start at all: the spawner's program is where revperf looks for it
 * (collect/helper_path.h). For a command to check before it builds, runs or prints
 * anything. Returns 0, or RP_EINPUT after an error naming every place looked at.
 */
int proc_spawner_check(void);

/*
 * The CPUs of every run from now on (NULL: revperf's own, inherited): the spawner, which
 * forks the runs, is started anew on them. Not thread-safe.
 */
void proc_spawner_cpus(const cpu_set_t *set);

/*
 * Stops the spawner process if one runs, and reaps it; the next proc_run() starts a new
 * one. Not needed before exit (the spawner exits with its parent). Not thread-safe.
 */
void proc_spawner_stop(void);

#endif
