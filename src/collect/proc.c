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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/cmdline.h"
#include "collect/output_relay.h"
#include "collect/perf_counters.h"
#include "collect/perf_sample.h"
#include "collect/sampler.h"
#include "collect/spawn_protocol.h"
#include "collect/spawner.h"
#include "util/fsutil.h"
#include "util/common.h"

#define NS_PER_SEC INT64_C(1000000000)
#define NO_DEADLINE INT64_MAX
/* Between SIGTERM and SIGKILL to a timed-out or interrupted process group. */
#define GRACE_NS NS_PER_SEC
/* How long SIGKILLed stragglers may take to disappear before we give up on them. */
#define STRAGGLER_WAIT_NS NS_PER_SEC
/* Polling step bounds of the wait for stragglers to disappear. */
#define POLL_STEP_MIN_NS INT64_C(20000)
#define POLL_STEP_MAX_NS INT64_C(1000000)
/*
 * Sampling during a run (docs/counters.md): the group sampler, and the counter lines read
 * from the child's output as the relay (collect/output_relay.h) passes it on.
 */
struct sampling {
	struct group_sampler *gs; /* from the release of the child on */
	struct run_samples *out;
	struct counter_lines lines;
	ns_t start_ns;
};

/*
 * revperf's view of one running child. Its parent is the spawner (collect/spawner.h), which
 * forks it, times it, reaps it and reports on it; revperf guards it.
 */
struct child {
	pid_t pid; /* also its process group id */
	/* Sampling only: a pidfd, whose readiness at the exit times the last sample; -1: the
	 * spawner's report is the notification of the exit. */
	int pidfd;
	ns_t start_ns;	 /* the spawner's clock just before the fork */
	ns_t end_ns;	 /* when revperf saw the exit (the wall time is the spawner's) */
	int sent_signal; /* last signal the process guard sent to the group, 0 if none */
	bool reported;	 /* the spawner's report is in ex */
	struct spawner_exit ex;
	struct sampling *sampling;  /* NULL without sampling */
	struct output_relay *relay; /* NULL: the output goes straight to its file */
	struct perf_recorder *recorder; /* NULL without a sampling profile */
	int hold; /* revperf's end of a held run's hold socket until the release; else -1 */
};

enum wait_outcome { WAIT_EXITED, WAIT_DEADLINE, WAIT_INTERRUPTED };

/* Kernel facts, established once per process (besides the spawner, the only global state). */
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

void proc_spawner_stop(void)
{
	spawner_stop();
}

int proc_spawner_check(void)
{
	struct strbuf path = STRBUF_INIT;
	int ret = spawner_find(&path);
	strbuf_release(&path);
	return ret;
}

void proc_spawner_cpus(const cpu_set_t *set)
{
	spawner_cpus(set);
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

/*
 * A pidfd of the child (a child of the spawner: pidfd_open() works on any process), which
 * becomes readable the moment it exits; -1 without one (Linux < 5.3), and then the
 * spawner's report, sent once it reaped the child, is the notification. Only sampled runs
 * use one: their last sample is taken at the exit, before the spawner kills the group.
 */
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
 * The spawner is the subreaper of the benchmarks; revperf is one too for the case that the
 * spawner dies during a run: its children and their orphans then come back to revperf, and
 * reap_stragglers() reaps them. Per process and idempotent; a kernel without it (< 3.4)
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
	r->log_offset = -1;
	for (int c = 0; c < PERF_COUNTER_MAX; c++)
		r->m.perf_value[c] = NAN;
}

static double since_start_s(const struct sampling *s, ns_t t)
{
	return (double)(t - s->start_ns) / 1e9;
}

/* The relay's observer when sampling: the revperf-counter lines of the output. */
static void sampling_observe(void *arg, const char *buf, size_t len, ns_t t_ns)
{
	struct sampling *s = arg;

	counter_lines_feed(&s->lines, buf, len, since_start_s(s, t_ns), s->out);
}

static void sampling_free(struct sampling *s)
{
	if (!s)
		return;
	group_sampler_free(s->gs);
	counter_lines_release(&s->lines);
	free(s);
}

/*
 * Waits until the child exits (end_ns is set then), the deadline passes or, when
 * watch_interrupt, the user interrupts revperf. The exit is seen as the spawner's report,
 * or first on the child's pidfd when sampling; the spawner's socket is watched either way,
 * so that its death ends the wait. The interrupt signals are blocked except inside ppoll(),
 * so that one arriving between the check and the wait is not lost. When sampling, the
 * wait also wakes up for the sampler's ticks and takes the last sample at the exit; with a
 * relay, for the child's output.
 * Returns 0 with *outcome set, or -1 on an internal error (printed).
 */
static int wait_exit(struct child *c, ns_t deadline, bool watch_interrupt,
		     enum wait_outcome *outcome)
{
	struct sampling *s = c->sampling;
	struct output_relay *relay = c->relay;
	struct pollfd pfd[4] = {{.fd = spawner_fd(), .events = POLLIN},
				{.fd = c->pidfd, .events = POLLIN},
				{.fd = -1, .events = POLLIN},
				{.fd = perf_recorder_fd(c->recorder), .events = POLLIN}};
	sigset_t block, old;
	int ret = 0;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	for (;;) {
		ns_t wake = deadline, left = NO_DEADLINE, now;
		struct timespec ts;
		int n;

		if (watch_interrupt && interrupt_requested()) {
			*outcome = WAIT_INTERRUPTED;
			break;
		}
		now = now_ns();
		if (deadline != NO_DEADLINE && deadline - now <= 0) {
			*outcome = WAIT_DEADLINE;
			break;
		}
		if (s) {
			if (now >= group_sampler_next_ns(s->gs)) {
				group_sampler_tick(s->gs, now);
				now = now_ns();
			}
			if (group_sampler_next_ns(s->gs) < wake)
				wake = group_sampler_next_ns(s->gs);
		}
		if (relay)
			pfd[2].fd = output_relay_fd(relay);
		if (wake != NO_DEADLINE)
			left = wake > now ? wake - now : 0;
		ts = ns_to_timespec(left);
		n = ppoll(pfd, ARRAY_SIZE(pfd), left == NO_DEADLINE ? NULL : &ts, &old);
		if (n < 0 && errno != EINTR) {
			ret = error("cannot poll process %d: %s", (int)c->pid, strerror(errno));
			break;
		}
		if (n <= 0)
			continue;
		if (pfd[2].revents)
			output_relay_read(relay);
		if (pfd[3].revents)
			perf_recorder_drain(c->recorder);
		if (!pfd[0].revents && !pfd[1].revents)
			continue;
		c->end_ns = now_ns();
		if (s)
			group_sampler_last(s->gs, c->end_ns);
		/* The report (or the spawner's death) may come first when both are ready. */
		if (!pfd[1].revents) {
			if (spawner_wait(c->pid, &c->ex) < 0) {
				ret = -1;
				break;
			}
			c->reported = true;
		}
		*outcome = WAIT_EXITED;
		break;
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

/* After the main child exited: the rest of its group must not run on (or stay a zombie). */
static bool reap_stragglers(pid_t pgid)
{
	ns_t deadline = 0, step = POLL_STEP_MIN_NS;
	bool found = false;

	for (;;) {
		/*
		 * Orphans go to the spawner, which reaps them; ours only when the spawner died
		 * (see become_subreaper()).
		 */
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

void proc_result_notes(const struct proc_result *r, struct strbuf *sb)
{
	if (r->stragglers_killed)
		strbuf_addf(sb, "%sprocesses it left running were killed", sb->len ? "; " : "");
	if (r->escaped_killed)
		strbuf_addf(sb, "%s%d process%s escaped the process group and %s killed",
			    sb->len ? "; " : "", r->escaped_killed,
			    r->escaped_killed == 1 ? "" : "es",
			    r->escaped_killed == 1 ? "was" : "were");
	if (r->escaped_left)
		strbuf_addf(sb, "; %d of them could not be killed and may still run",
			    r->escaped_left);
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
 * Collects an exited child: the spawner timed it, read its /proc/<pid>/io while it was a
 * zombie, killed the rest of its group, reaped it and reported, then killed the processes
 * that had left the group, read the counters and reported again; then the stragglers of
 * the group are waited for (and killed again). Returns 0, or -1 (printed).
 */
static int collect_exited(struct child *c, int *wstatus, struct proc_result *r)
{
	const struct spawner_exit *ex = &c->ex;
	struct spawner_escapes esc;

	if (!c->reported && spawner_wait(c->pid, &c->ex) < 0)
		return -1;
	c->reported = true;
	if (spawner_wait_escapes(c->pid, &esc) < 0)
		return -1;
	c->pid = -1;
	r->escaped_killed = esc.killed;
	r->escaped_left = esc.left;
	/* Either way, wait until they are gone: the counters include them only then. */
	r->stragglers_killed = reap_stragglers(r->pid) || ex->group_left;
	*wstatus = ex->wstatus;
	r->m.wall_ns = ex->end_ns - c->start_ns;
	r->m.user_ns = timeval_ns(ex->ru.ru_utime);
	r->m.sys_ns = timeval_ns(ex->ru.ru_stime);
	r->m.maxrss_kb = ex->ru.ru_maxrss;
	r->m.minflt = ex->ru.ru_minflt;
	r->m.majflt = ex->ru.ru_majflt;
	r->m.nvcsw = ex->ru.ru_nvcsw;
	r->m.nivcsw = ex->ru.ru_nivcsw;
	r->m.io_valid = ex->io_valid;
	r->m.rchar = ex->rchar;
	r->m.wchar = ex->wchar;
	perf_counters_fill(esc.perf_read, esc.perf, &r->m);
	return 0;
}

static void describe_not_started(const struct spawner_exit *ex, const struct proc_spec *spec,
				 const char *file, struct proc_result *r)
{
	const char *why = strerror(ex->start_err);

	switch (ex->start_stage) {
	case SPAWN_STAGE_CWD:
		snprintf(r->detail, sizeof(r->detail), "cannot change to directory '%s': %s",
			 spec->cwd ? spec->cwd : ".", why);
		break;
	case SPAWN_STAGE_EXEC:
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
	/* Fails quietly when the spawner is gone; it killed what was below it first. */
	if (c->reported || spawner_wait(c->pid, NULL) == 0)
		spawner_wait_escapes(c->pid, NULL);
	reap_stragglers(c->pid);
	c->pid = -1;
}

/* The end of a run: the rest of its output, and what the result says about it. */
static void output_finish(struct child *c, pid_t pgid, struct proc_result *r)
{
	struct sampling *s = c->sampling;

	if (c->relay) {
		r->output_cut = output_relay_drain(c->relay, pgid);
		r->output_bytes = output_relay_total(c->relay);
		r->output_dropped = output_relay_dropped(c->relay);
	}
	if (!s)
		return;
	/* A last line without its newline is complete now. */
	counter_lines_finish(&s->lines, since_start_s(s, now_ns()), s->out);
	r->counter_lines = s->lines.counters;
	r->counter_lines_malformed = s->lines.malformed;
	r->samples_io_missing = s->gs && group_sampler_io_missing(s->gs);
}

/* revperf's side of one run, from the spawner's fork to the reaping. */
static int run_parent(const struct proc_spec *spec, const char *file, struct child *c,
		      struct proc_result *r)
{
	enum run_status guard = RUN_OK;
	enum wait_outcome w;
	int wstatus = 0;

	if (c->hold >= 0) {
		/*
		 * A held run (a sampling profile): the child waits before its exec until the
		 * events are on it. Its wall time starts at the release, as it did when every
		 * run was released by revperf (the spawner's clock started at the fork).
		 */
		if (spec->recorder) {
			if (perf_recorder_attach(spec->recorder, c->pid) < 0)
				return -1;
			c->recorder = spec->recorder;
		}
		c->start_ns = now_ns();
		if (send(c->hold, "g", 1, MSG_NOSIGNAL) < 0 && errno != EPIPE &&
		    errno != ECONNRESET)
			return error("cannot release process %d: %s", (int)c->pid, strerror(errno));
		close(c->hold);
		c->hold = -1;
	}
	if (c->sampling) {
		c->pidfd = open_pidfd(c->pid);
		c->sampling->start_ns = c->start_ns;
		c->sampling->gs =
		    group_sampler_new(c->pid, c->start_ns, spec->sample_interval_ns, spec->samples);
	}
	if (wait_exit(c, spec->timeout_ns > 0 ? c->start_ns + spec->timeout_ns : NO_DEADLINE, true,
		      &w) < 0)
		return -1;
	if (w != WAIT_EXITED) {
		guard = w == WAIT_DEADLINE ? RUN_TIMEOUT : RUN_INTERRUPTED;
		if (stop_group(c) < 0)
			return -1;
	}
	/* Before the stragglers are waited for: they may be blocked on a full pipe. */
	output_finish(c, r->pid, r);
	if (collect_exited(c, &wstatus, r) < 0)
		return -1;
	if (c->ex.start_stage) {
		r->status = RUN_NOT_STARTED;
		describe_not_started(&c->ex, spec, file, r);
		return 0;
	}
	describe_status(c, wstatus, guard, spec, r);
	return 0;
}

/*
 * Sets up the relay of the output (with a log limit, or when sampling): its pipe's write
 * end in *pipe_w, copied to log_fd (the log file, or -1), and the sampling that reads the
 * counter lines. Returns 0, or -1 (printed).
 */
static int output_start(const struct proc_spec *spec, int log_fd, struct child *c, int *pipe_w)
{
	struct sampling *s = NULL;

	if (spec->sample_interval_ns > 0) {
		if (!spec->samples || spec->samples->nr)
			return error("sampling needs an empty struct run_samples for the samples "
				     "(a bug)");
		s = xcalloc(1, sizeof(*s));
		s->out = spec->samples;
		s->out->interval_s = (double)spec->sample_interval_ns / 1e9;
		counter_lines_init(&s->lines);
		c->sampling = s;
	} else if (!(spec->log_limit_bytes > 0 && log_fd >= 0)) {
		return 0; /* straight to the file: nothing to relay */
	}
	return output_relay_new(log_fd, spec->log_path, log_fd >= 0 ? spec->log_limit_bytes : 0,
				s ? sampling_observe : NULL, s, &c->relay, pipe_w);
}

struct proc_handle {
	struct proc_spec spec; /* the caller's, valid until proc_finish() */
	struct child c;
	char **argv;	  /* NULL: run with /bin/sh -c */
	const char *file; /* what is exec'd, for messages */
	int devnull, out_fd;
	bool interrupted; /* the user interrupted revperf before the submission */
	bool header_done; /* spec.log_header is in the log */
	int64_t log_offset;
};

/*
 * Appends spec.log_header to the log and notes where the run's output starts. Returns 0,
 * or -1 (printed).
 */
static int log_header_write(struct proc_handle *h)
{
	const char *header = h->spec.log_header;
	size_t len = header ? strlen(header) : 0;
	struct stat st;

	h->header_done = true;
	if (h->out_fd < 0)
		return 0;
	if ((len && write(h->out_fd, header, len) != (ssize_t)len) || fstat(h->out_fd, &st) < 0)
		return error("cannot write log file '%s': %s", h->spec.log_path,
			     fs_strerror(errno));
	h->log_offset = (int64_t)st.st_size;
	return 0;
}

static void handle_free(struct proc_handle *h)
{
	struct child *c = &h->c;

	/* Only after an internal error is the child still there. */
	abandon_child(c);
	sampling_free(c->sampling);
	output_relay_free(c->relay);
	if (c->pidfd >= 0)
		close(c->pidfd);
	/* Not released: the child sees end of file and does not exec. */
	if (c->hold >= 0)
		close(c->hold);
	if (h->out_fd >= 0)
		close(h->out_fd);
	if (h->devnull >= 0)
		close(h->devnull);
	cmdline_free(h->argv);
	free(h);
}

struct proc_handle *proc_submit(const struct proc_spec *spec)
{
	struct proc_handle *h = xcalloc(1, sizeof(*h));
	char *shell_argv[] = {(char *)"/bin/sh", (char *)"-c", (char *)spec->command, NULL};
	struct spawner_run run = {0};
	int pipe_w = -1, hold[2] = {-1, -1};

	h->spec = *spec;
	h->c.pid = -1;
	h->c.pidfd = -1;
	h->c.hold = -1;
	h->out_fd = -1;
	h->log_offset = -1;
	h->devnull = -1;
	if (interrupt_requested()) {
		h->interrupted = true;
		return h;
	}
	become_subreaper();
	h->argv = cmdline_split(spec->command);
	h->file = h->argv ? h->argv[0] : shell_argv[0];
	h->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (h->devnull < 0) {
		error("cannot open /dev/null: %s", strerror(errno));
		goto fail;
	}
	if (spec->log_path) {
		h->out_fd = open(spec->log_path,
				 O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
				     (spec->log_follow_links ? 0 : O_NOFOLLOW),
				 0644);
		if (h->out_fd < 0) {
			error("cannot open log file '%s': %s", spec->log_path, fs_strerror(errno));
			goto fail;
		}
	}
	if (output_start(spec, h->out_fd, &h->c, &pipe_w) < 0)
		goto fail;
	/* Straight to the file: the header goes first. Relayed: when its output is copied. */
	if (pipe_w < 0 && log_header_write(h) < 0)
		goto fail;
	run.argv = h->argv ? h->argv : shell_argv;
	run.cwd = spec->cwd;
	/* revperf's stdin when it has one open (a closed fd 0 could be any file later). */
	run.stdin_fd = spec->pass_stdin && fcntl(STDIN_FILENO, F_GETFD) >= 0 ? STDIN_FILENO
									       : h->devnull;
	run.err_fd = pipe_w >= 0 ? pipe_w : h->out_fd >= 0 ? h->out_fd : h->devnull;
	run.out_fd = spec->discard_stdout ? h->devnull : run.err_fd;
	run.hold_fd = -1;
	run.env_set = spec->env_set;
	if (spec->perf_counters)
		perf_counters_request(&run.perf_mask, &run.perf_user_only);
	run.no_io = spec->no_io;
	/* A sampling profile's events go on the child before its exec: it waits for them. */
	if (spec->recorder) {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, hold) < 0) {
			error("cannot create a socket pair: %s", strerror(errno));
			goto fail;
		}
		h->c.hold = hold[0];
		run.hold_fd = hold[1];
	}
	if (spawner_submit(&run) < 0)
		goto fail;
	/* Now only the spawner (and the child) holds the pipe: their end means end of file. */
	if (pipe_w >= 0)
		close(pipe_w);
	if (hold[1] >= 0)
		close(hold[1]);
	return h;
fail:
	if (pipe_w >= 0)
		close(pipe_w);
	if (hold[1] >= 0)
		close(hold[1]);
	handle_free(h);
	return NULL;
}

int proc_finish(struct proc_handle *h, struct proc_result *result)
{
	int ret = -1, started;

	result_init(result);
	if (!h)
		return -1;
	if (h->interrupted) {
		char isig[32];

		signal_name(isig, sizeof(isig), interrupt_signal());
		result->status = RUN_INTERRUPTED;
		snprintf(result->detail, sizeof(result->detail), "not started: interrupted by %s",
			 isig);
		ret = 0;
		goto out;
	}
	result->shell = !h->argv;
	started = spawner_started(&h->c.pid, &h->c.start_ns);
	if (started < 0)
		goto out;
	if (started > 0) {
		result->cancelled = true;
		snprintf(result->detail, sizeof(result->detail),
			 "not started: the run before it did not exit with status 0");
		ret = 0;
		goto out;
	}
	result->pid = h->c.pid;
	if (!h->header_done && log_header_write(h) < 0)
		goto out;
	ret = run_parent(&h->spec, h->file, &h->c, result);
out:
	result->log_offset = h->log_offset;
	handle_free(h);
	return ret;
}

void proc_abandon(struct proc_handle *h)
{
	if (!h)
		return;
	/* Started: its SPAWNED is next to read (handles are finished in order). */
	if (!h->interrupted && spawner_running() && spawner_started(&h->c.pid, &h->c.start_ns) != 0)
		h->c.pid = -1;
	/* handle_free() kills what was started and reads its reports. */
	handle_free(h);
}

int proc_run(const struct proc_spec *spec, struct proc_result *result)
{
	struct proc_handle *h = proc_submit(spec);

	if (!h) {
		result_init(result);
		return -1;
	}
	return proc_finish(h, result);
}
