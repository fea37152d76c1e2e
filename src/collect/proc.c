#include "collect/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/cmdline.h"
#include "collect/perf_counters.h"
#include "util/common.h"

#define NS_PER_SEC INT64_C(1000000000)
#define NO_DEADLINE INT64_MAX
/* Between SIGTERM and SIGKILL to a timed-out or interrupted process group. */
#define GRACE_NS NS_PER_SEC
/* How long SIGKILLed stragglers may take to disappear before we give up on them. */
#define STRAGGLER_WAIT_NS NS_PER_SEC
/* Polling step bounds of the waits without a pidfd. */
#define POLL_STEP_MIN_NS INT64_C(20000)
#define POLL_STEP_MAX_NS INT64_C(1000000)

/* Why the child could not start, sent to the parent through the sync socket. */
enum child_stage { STAGE_SETUP = 1, STAGE_CWD, STAGE_EXEC };
struct child_report {
	int stage;
	int err;
};

/* What the child needs between fork and exec, prepared before the fork. */
struct child_setup {
	char *const *argv;
	const char *cwd;
	pid_t parent;
	int stdin_fd, out_fd, sock;
};

/* The parent's view of one running child. */
struct child {
	pid_t pid; /* also its process group id */
	int pidfd; /* -1: wait with the waitid sleep loop */
	int sock;  /* parent end of the sync socketpair */
	int io_fd; /* /proc/<pid>/io, opened while the child was alive; -1 if refused */
	ns_t start_ns, end_ns;
	int sent_signal; /* last signal the process guard sent to the group, 0 if none */
};

enum wait_outcome { WAIT_EXITED, WAIT_DEADLINE, WAIT_INTERRUPTED };

/* Kernel facts, established once per process (the engine's only other global state). */
static bool pidfd_unavailable; /* pidfd_open() said ENOSYS, or a test forced the fallback */
static bool subreaper_done;

const char *run_status_name(enum run_status s)
{
	switch (s) {
	case RUN_OK: return "ok";
	case RUN_FAILED: return "failed";
	case RUN_CRASHED: return "crashed";
	case RUN_TIMEOUT: return "timeout";
	case RUN_NOT_STARTED: return "not-started";
	case RUN_INTERRUPTED: return "interrupted";
	}
	return "unknown";
}

void proc_wait_fallback_force(bool on)
{
	pidfd_unavailable = on;
}

static ns_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ns_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

static struct timespec ns_to_timespec(ns_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / NS_PER_SEC),
			      .tv_nsec = (long)(ns % NS_PER_SEC)};
	return ts;
}

static ns_t timeval_ns(struct timeval tv)
{
	return (ns_t)tv.tv_sec * NS_PER_SEC + (ns_t)tv.tv_usec * 1000;
}

static void sleep_ns(ns_t ns)
{
	struct timespec ts = ns_to_timespec(ns);

	nanosleep(&ts, NULL);
}

/* "SIGSEGV", or "signal 77" for a number without a name. */
static void signal_name(char *buf, size_t size, int sig)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, size, "SIG%s", abbrev);
	else
		snprintf(buf, size, "signal %d", sig);
}

/*
 * Orphaned descendants of a benchmark are re-parented to revperf instead of init, so that
 * the process guard can reap them. Per process and idempotent; a kernel without it (< 3.4)
 * only loses that reaping.
 */
static void become_subreaper(void)
{
	if (subreaper_done)
		return;
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	subreaper_done = true;
}

static void result_init(struct proc_result *r)
{
	memset(r, 0, sizeof(*r));
	r->status = RUN_NOT_STARTED;
	r->pid = -1;
	for (int c = 0; c < PERF_COUNTER_MAX; c++)
		r->m.perf_value[c] = NAN;
}

static _Noreturn void child_fail(int sock, int stage, int err)
{
	struct child_report rep = {.stage = stage, .err = err};
	ssize_t n = write(sock, &rep, sizeof(rep));

	UNUSED(n);
	_exit(127);
}

/* Runs in the forked child: only async-signal-safe calls from here to exec. */
static _Noreturn void child_main(const struct child_setup *cs)
{
	/* Ignored dispositions survive exec; a benchmark starts with the defaults. */
	static const int reset_signals[] = {SIGPIPE, SIGINT,  SIGQUIT, SIGTERM, SIGHUP,	 SIGCHLD,
					    SIGTSTP, SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2, SIGALRM};
	struct sigaction dfl;
	sigset_t none;
	char go;
	ssize_t n;

	setpgid(0, 0);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (size_t i = 0; i < ARRAY_SIZE(reset_signals); i++)
		sigaction(reset_signals[i], &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* If revperf dies (even by SIGKILL) the benchmark must not run on unattended. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != cs->parent)
		_exit(127);
	if (dup2(cs->stdin_fd, STDIN_FILENO) < 0 || dup2(cs->out_fd, STDOUT_FILENO) < 0 ||
	    dup2(cs->out_fd, STDERR_FILENO) < 0)
		child_fail(cs->sock, STAGE_SETUP, errno);
	if (cs->cwd && chdir(cs->cwd) < 0)
		child_fail(cs->sock, STAGE_CWD, errno);
	/* Wait until the parent has attached the counters and started the clock. */
	do
		n = read(cs->sock, &go, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127);
	execvp(cs->argv[0], cs->argv);
	child_fail(cs->sock, STAGE_EXEC, errno);
}

/*
 * Reads the child's report: 1 when it could not start (rep filled), 0 when it exec'd (the
 * CLOEXEC socket end closed without a report).
 */
static int read_report(int sock, struct child_report *rep)
{
	size_t got = 0;

	while (got < sizeof(*rep)) {
		ssize_t n = read(sock, (char *)rep + got, sizeof(*rep) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got == sizeof(*rep);
}

static int open_pidfd(pid_t pid)
{
	int fd;

	if (pidfd_unavailable)
		return -1;
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0 && errno == ENOSYS)
		pidfd_unavailable = true;
	return fd;
}

/* Whether the child has exited, without reaping it; -1 on error (printed). */
static int child_exited(pid_t pid)
{
	siginfo_t si;

	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0)
			return si.si_pid == pid;
		if (errno != EINTR)
			return error("cannot wait for process %d: %s", (int)pid, strerror(errno));
	}
}

/*
 * Waits until the child exits (end_ns is set then), the deadline passes or, when
 * watch_interrupt, the user interrupts revperf. The interrupt signals are blocked except
 * inside ppoll(), so that one arriving between the check and the wait is not lost.
 * Returns 0 with *outcome set, or -1 on an internal error (printed).
 */
static int wait_exit(struct child *c, ns_t deadline, bool watch_interrupt,
		     enum wait_outcome *outcome)
{
	sigset_t block, old;
	ns_t step = POLL_STEP_MIN_NS;
	int ret = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	for (;;) {
		ns_t left = NO_DEADLINE;
		struct timespec ts;

		if (watch_interrupt && interrupt_requested()) {
			*outcome = WAIT_INTERRUPTED;
			break;
		}
		if (deadline != NO_DEADLINE) {
			left = deadline - now_ns();
			if (left <= 0) {
				*outcome = WAIT_DEADLINE;
				break;
			}
		}
		if (c->pidfd >= 0) {
			struct pollfd pfd = {.fd = c->pidfd, .events = POLLIN};
			int n;

			ts = ns_to_timespec(left);
			n = ppoll(&pfd, 1, left == NO_DEADLINE ? NULL : &ts, &old);
			if (n > 0) {
				c->end_ns = now_ns();
				*outcome = WAIT_EXITED;
				break;
			}
			if (n < 0 && errno != EINTR) {
				ret = error("cannot poll process %d: %s", (int)c->pid,
					    strerror(errno));
				break;
			}
		} else {
			int exited = child_exited(c->pid);

			if (exited < 0) {
				ret = -1;
				break;
			}
			if (exited) {
				c->end_ns = now_ns();
				*outcome = WAIT_EXITED;
				break;
			}
			/* A sleep during which the interrupt signals can arrive. */
			ts = ns_to_timespec(step < left ? step : left);
			ppoll(NULL, 0, &ts, &old);
			step = step * 2 < POLL_STEP_MAX_NS ? step * 2 : POLL_STEP_MAX_NS;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

/*
 * The process guard: SIGTERM to the whole group, SIGKILL after GRACE_NS, then waits for
 * the child to exit. Returns 0, or -1 on an internal error.
 */
static int stop_group(struct child *c)
{
	enum wait_outcome w;

	kill(-c->pid, SIGTERM);
	c->sent_signal = SIGTERM;
	if (wait_exit(c, now_ns() + GRACE_NS, false, &w) < 0)
		return -1;
	if (w == WAIT_EXITED)
		return 0;
	kill(-c->pid, SIGKILL);
	c->sent_signal = SIGKILL;
	return wait_exit(c, NO_DEADLINE, false, &w);
}

/*
 * Opened before the child runs: once it is a zombie (no mm), /proc/<pid>/ files belong to
 * root and only root could open them; an open file stays readable by the same user.
 */
static int open_proc_io(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* rchar and wchar of a zombie: its own I/O plus that of the children it reaped. */
static void read_proc_io(int fd, struct proc_metrics *m)
{
	char buf[512];
	const char *r, *w;
	ssize_t n;

	if (fd < 0)
		return;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return;
	buf[n] = '\0';
	r = strstr(buf, "rchar: ");
	w = strstr(buf, "wchar: ");
	if (!r || !w)
		return;
	m->rchar = strtoll(r + 7, NULL, 10);
	m->wchar = strtoll(w + 7, NULL, 10);
	m->io_valid = true;
}

/* After the main child exited: the rest of its group must not run on (or stay a zombie). */
static bool reap_stragglers(pid_t pgid)
{
	ns_t deadline = 0, step = POLL_STEP_MIN_NS;
	bool found = false;

	for (;;) {
		/* Ours when their parent died before them (we are the subreaper). */
		while (waitpid(-pgid, NULL, WNOHANG) > 0)
			;
		if (kill(-pgid, 0) < 0 && errno == ESRCH)
			return found;
		if (!found) {
			found = true;
			deadline = now_ns() + STRAGGLER_WAIT_NS;
		} else if (now_ns() > deadline) {
			warning("process group %d still has members after SIGKILL; leaving them",
				(int)pgid);
			return found;
		}
		/* Again: one may have forked before the first SIGKILL reached it. */
		kill(-pgid, SIGKILL);
		sleep_ns(step);
		step = step * 2 < POLL_STEP_MAX_NS ? step * 2 : POLL_STEP_MAX_NS;
	}
}

/* sh's own exit statuses for a command it could not find or execute. */
static const char *shell_exit_hint(const struct proc_result *r)
{
	if (r->shell && r->exit_code == 127)
		return " (the shell did not find the command?)";
	if (r->shell && r->exit_code == 126)
		return " (the shell could not execute the command?)";
	return "";
}

static void describe_status(const struct child *c, int wstatus, enum run_status guard,
			    const struct proc_spec *spec, struct proc_result *r)
{
	char sig[32], isig[32];

	if (guard != RUN_OK) {
		r->status = guard;
		r->signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : c->sent_signal;
		signal_name(sig, sizeof(sig), c->sent_signal);
		signal_name(isig, sizeof(isig), interrupt_signal());
		if (guard == RUN_TIMEOUT)
			snprintf(r->detail, sizeof(r->detail),
				 "timed out after %.3f s; process group killed with %s",
				 (double)spec->timeout_ns / 1e9, sig);
		else
			snprintf(r->detail, sizeof(r->detail),
				 "interrupted by %s; process group killed with %s", isig, sig);
	} else if (WIFEXITED(wstatus)) {
		r->exit_code = WEXITSTATUS(wstatus);
		r->status = r->exit_code ? RUN_FAILED : RUN_OK;
		if (r->exit_code)
			snprintf(r->detail, sizeof(r->detail), "exited with status %d%s",
				 r->exit_code, shell_exit_hint(r));
	} else if (WIFSIGNALED(wstatus)) {
		r->status = RUN_CRASHED;
		r->signal = WTERMSIG(wstatus);
		signal_name(sig, sizeof(sig), r->signal);
		snprintf(r->detail, sizeof(r->detail), "killed by %s (%s)%s", sig,
			 strsignal(r->signal), WCOREDUMP(wstatus) ? ", core dumped" : "");
	}
}

/*
 * Reaps an exited child: /proc/<pid>/io while it is a zombie, then the stragglers of its
 * group are killed (while the zombie still holds the group id, so the id cannot have been
 * reused), then wait4() for its status and rusage. Returns 0, or -1 (printed).
 */
static int collect_exited(struct child *c, int *wstatus, struct proc_result *r)
{
	struct rusage ru;
	siginfo_t si;
	pid_t got;

	while (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			return error("cannot wait for process %d: %s", (int)c->pid,
				     strerror(errno));
	read_proc_io(c->io_fd, &r->m);
	kill(-c->pid, SIGKILL);
	do
		got = wait4(c->pid, wstatus, 0, &ru);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return error("cannot reap process %d: %s", (int)c->pid, strerror(errno));
	c->pid = -1;
	r->stragglers_killed = reap_stragglers(r->pid);
	r->m.wall_ns = c->end_ns - c->start_ns;
	r->m.user_ns = timeval_ns(ru.ru_utime);
	r->m.sys_ns = timeval_ns(ru.ru_stime);
	r->m.maxrss_kb = ru.ru_maxrss;
	r->m.minflt = ru.ru_minflt;
	r->m.majflt = ru.ru_majflt;
	r->m.nvcsw = ru.ru_nvcsw;
	r->m.nivcsw = ru.ru_nivcsw;
	return 0;
}

static void describe_not_started(const struct child_report *rep, const struct proc_spec *spec,
				 const char *file, struct proc_result *r)
{
	const char *why = strerror(rep->err);

	switch (rep->stage) {
	case STAGE_CWD:
		snprintf(r->detail, sizeof(r->detail), "cannot change to directory '%s': %s",
			 spec->cwd, why);
		break;
	case STAGE_EXEC:
		snprintf(r->detail, sizeof(r->detail), "cannot execute '%s': %s", file, why);
		break;
	default:
		snprintf(r->detail, sizeof(r->detail), "cannot set up the child's stdio: %s", why);
		break;
	}
}

/* Kills and reaps a child we gave up on after an internal error. */
static void abandon_child(struct child *c)
{
	if (c->pid <= 0)
		return;
	kill(-c->pid, SIGKILL);
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
		;
	reap_stragglers(c->pid);
	c->pid = -1;
}

/* The parent side of one run, from the fork to the reaping. */
static int run_parent(const struct proc_spec *spec, const char *file, struct child *c,
		      struct perf_set *perf, struct proc_result *r)
{
	enum run_status guard = RUN_OK;
	struct child_report rep;
	enum wait_outcome w;
	int wstatus = 0;

	/* Also done by the child: whichever runs first, the group exists before exec. */
	setpgid(c->pid, c->pid);
	c->pidfd = open_pidfd(c->pid);
	c->io_fd = open_proc_io(c->pid);
	if (spec->perf_counters)
		perf_set_open(perf, c->pid);
	c->start_ns = now_ns();
	if (send(c->sock, "g", 1, MSG_NOSIGNAL) < 0 && errno != EPIPE && errno != ECONNRESET)
		return error("cannot release process %d: %s", (int)c->pid, strerror(errno));
	if (read_report(c->sock, &rep)) {
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
		c->pid = -1;
		r->status = RUN_NOT_STARTED;
		describe_not_started(&rep, spec, file, r);
		return 0;
	}
	if (wait_exit(c, spec->timeout_ns > 0 ? c->start_ns + spec->timeout_ns : NO_DEADLINE, true,
		      &w) < 0)
		return -1;
	if (w != WAIT_EXITED) {
		guard = w == WAIT_DEADLINE ? RUN_TIMEOUT : RUN_INTERRUPTED;
		if (stop_group(c) < 0)
			return -1;
	}
	if (collect_exited(c, &wstatus, r) < 0)
		return -1;
	/* After the stragglers are gone: inherited counts are folded in as each task exits. */
	perf_set_read(perf, &r->m);
	describe_status(c, wstatus, guard, spec, r);
	return 0;
}

int proc_run(const struct proc_spec *spec, struct proc_result *result)
{
	struct child c = {.pid = -1, .pidfd = -1, .sock = -1, .io_fd = -1};
	char *shell_argv[] = {(char *)"/bin/sh", (char *)"-c", (char *)spec->command, NULL};
	struct child_setup cs;
	struct perf_set perf;
	char **argv = NULL;
	int devnull = -1, out_fd = -1, sv[2] = {-1, -1};
	int ret = -1;

	result_init(result);
	perf_set_init(&perf);
	if (interrupt_requested()) {
		char isig[32];

		signal_name(isig, sizeof(isig), interrupt_signal());
		result->status = RUN_INTERRUPTED;
		snprintf(result->detail, sizeof(result->detail), "not started: interrupted by %s",
			 isig);
		ret = 0;
		goto out;
	}
	become_subreaper();
	argv = cmdline_split(spec->command);
	result->shell = !argv;
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0) {
		error("cannot open /dev/null: %s", strerror(errno));
		goto out;
	}
	if (spec->log_path) {
		out_fd = open(spec->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (out_fd < 0) {
			error("cannot open log file '%s': %s", spec->log_path, strerror(errno));
			goto out;
		}
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		error("cannot create a socket pair: %s", strerror(errno));
		goto out;
	}
	cs.argv = argv ? argv : shell_argv;
	cs.cwd = spec->cwd;
	cs.parent = getpid();
	cs.stdin_fd = devnull;
	cs.out_fd = out_fd >= 0 ? out_fd : devnull;
	cs.sock = sv[1];
	c.pid = fork();
	if (c.pid < 0) {
		error("cannot fork: %s", strerror(errno));
		goto out;
	}
	if (c.pid == 0)
		child_main(&cs);
	result->pid = c.pid;
	close(sv[1]);
	sv[1] = -1;
	c.sock = sv[0];
	ret = run_parent(spec, cs.argv[0], &c, &perf, result);
out:
	/* Only after an internal error is the child still there. */
	abandon_child(&c);
	perf_set_close(&perf);
	if (c.pidfd >= 0)
		close(c.pidfd);
	if (c.io_fd >= 0)
		close(c.io_fd);
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	if (out_fd >= 0)
		close(out_fd);
	if (devnull >= 0)
		close(devnull);
	cmdline_free(argv);
	return ret;
}
