/*
 * The I/O tracer's ptrace loop (collect/iotrace.h, docs/io-tracing.md).
 *
 * The program is forked, asks to be traced, stops, and installs (after PR_SET_NO_NEW_PRIVS)
 * a seccomp filter that returns SECCOMP_RET_TRACE for the traced system calls and
 * SECCOMP_RET_ALLOW for everything else; then it execs. The filter is inherited by every
 * descendant, and PTRACE_O_TRACEFORK/VFORK/CLONE attach each new task, so the whole tree
 * runs at full speed except at those calls. At a seccomp stop the tracer reads the
 * registers, the file behind the descriptor (/proc/TID/fd/N, the live table) and the
 * stack, then resumes with PTRACE_SYSCALL to see that one call's exit and its return
 * value, and resumes with PTRACE_CONT from there.
 *
 * A timeout is a sentinel child that sleeps and exits: its exit wakes the tracer's
 * waitpid() without a signal handler or a thread.
 */
#include "collect/iotrace.h"
#include "collect/iotrace_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/common.h"

#define NS_PER_SEC INT64_C(1000000000)
/* How long the tracer polls for the next stop before it sleeps (see poll_wait()). */
#define SPIN_NS INT64_C(50000)

/* The kernel's restart codes: the call is re-entered (or fails with EINTR) after a signal. */
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

struct ctx {
	const struct iotrace_options *opts;
	unsigned max_depth;
	struct iotrace_result *res;
	struct iotrace_table table;
	struct iotrace_frame *scratch;
	struct iotrace_tree tree;
	struct iotrace_unwind_stats unwind_stats;
	pid_t root, sentinel;
	bool killing;
	enum run_status guard; /* RUN_TIMEOUT or RUN_INTERRUPTED once the tree was killed */
};

static ns_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ns_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

void iotrace_options_init(struct iotrace_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->max_depth = IOTRACE_DEFAULT_DEPTH;
	opts->stdin_fd = -1;
	opts->out_fd = -1;
}

/* ---- accounting ---- */

static struct iotrace_entry *entry_of(struct ctx *c, size_t idx)
{
	return &c->table.entries[idx];
}

/* The call of t that never returned to the program: its process died in it. */
static void call_unfinished(struct ctx *c, struct iotrace_tracee *t)
{
	if (t->in_call || t->restart) {
		struct iotrace_entry *e = entry_of(c, t->call_entry);

		e->calls++;
		e->unfinished++;
	}
	t->in_call = t->restart = false;
}

/* The interrupted call of t was not re-entered: the program saw EINTR. */
static void call_interrupted(struct ctx *c, struct iotrace_tracee *t)
{
	struct iotrace_entry *e = entry_of(c, t->call_entry);

	e->calls++;
	e->errors++;
	e->last_errno = EINTR;
	t->restart = false;
}

/* Appends the decimal digits of v (>= 0) at p; returns the end. */
static char *put_decimal(char *p, long v)
{
	char digits[24];
	int n = 0;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	while (n > 0)
		*p++ = digits[--n];
	return p;
}

/* The file behind descriptor fd of thread tid, now. */
static const char *fd_file(struct ctx *c, pid_t tid, long fd)
{
	char path[64], buf[PATH_MAX], *p = path;
	ssize_t n = -1;

	if (fd >= 0 && fd <= INT_MAX) {
		/* "/proc/TID/fd/FD" without snprintf: this is once per traced call. */
		memcpy(p, "/proc/", 6);
		p = put_decimal(p + 6, tid);
		memcpy(p, "/fd/", 4);
		p = put_decimal(p + 4, fd);
		*p = '\0';
		n = readlink(path, buf, sizeof(buf));
	}
	if (n < 0)
		n = snprintf(buf, sizeof(buf), "fd %ld (not open)", fd);
	return iotrace_strings_intern(c->res->strings, buf, (size_t)n);
}

static void resume(struct iotrace_tracee *t, int sig)
{
	/* ESRCH: killed meanwhile; its exit is reported next. */
	ptrace(t->in_call ? PTRACE_SYSCALL : PTRACE_CONT, t->tid, NULL, (void *)(intptr_t)sig);
}

/*
 * A seccomp stop: the entry of a traced call. The thread is resumed into its call as soon
 * as its registers are read, and its file and stack are read while the call runs: until
 * its exit stop it runs no user code, so neither its stack nor (short of another thread
 * closing the descriptor) its file can change, and on a second CPU that work is hidden.
 */
static void on_call_entry(struct ctx *c, struct iotrace_tracee *t)
{
	const struct iotrace_call *call;
	struct iotrace_key key;
	iotrace_regs regs;
	size_t idx;

	if (!t->proc->exec_seen) {
		/* The tracer's own child reporting a failed exec. */
		resume(t, 0);
		return;
	}
	if (t->in_call)
		call_unfinished(c, t); /* its exit stop never came */
	if (ptrace(PTRACE_GETREGS, t->tid, NULL, &regs) < 0) {
		if (errno != ESRCH)
			resume(t, 0);
		return;
	}
	call = iotrace_call_of(iotrace_regs_nr(&regs), c->opts->reads);
	if (!call) {
		resume(t, 0);
		return;
	}
	c->res->traced_calls++;
	t->in_call = true;
	resume(t, 0);
	if (!t->proc->unw)
		t->proc->unw = iotrace_unwinder_new(t->proc->tgid, c->res->strings,
						    c->opts->verify_unwind, &c->unwind_stats);
	key.dir = call->dir;
	key.syscall = call->name;
	key.file = fd_file(c, t->tid, (long)(int)iotrace_regs_arg0(&regs));
	key.frames = c->scratch;
	key.nr_frames =
	    iotrace_unwind(t->proc->unw, t->tid, &regs, c->scratch, c->max_depth, &key.truncated);
	idx = iotrace_table_get(&c->table, &key);
	/* The kernel re-enters an interrupted call at the same place: that is one call. */
	if (t->restart && !(t->call_entry == idx && t->call_nr == call->nr))
		call_interrupted(c, t);
	t->restart = false;
	t->call_nr = call->nr;
	t->call_entry = idx;
}

/* The syscall-exit stop of a traced call: its result. */
static void on_call_exit(struct ctx *c, struct iotrace_tracee *t)
{
	struct iotrace_entry *e;
	long ret;

	if (!t->in_call)
		return;
	errno = 0;
	ret = ptrace(PTRACE_PEEKUSER, t->tid, (void *)IOTRACE_RETVAL_OFFSET, NULL);
	if (errno)
		return; /* killed: counted as unfinished at its exit */
	t->in_call = false;
	if (ret == -ERESTARTSYS || ret == -ERESTARTNOINTR || ret == -ERESTARTNOHAND ||
	    ret == -ERESTART_RESTARTBLOCK) {
		t->restart = true;
		return;
	}
	e = entry_of(c, t->call_entry);
	e->calls++;
	if (ret < 0) {
		e->errors++;
		e->last_errno = (int)-ret;
	} else {
		e->bytes += (uint64_t)ret;
	}
}

/* ---- killing ---- */

/* SIGKILL to every process of the tree (and the program's group, for good measure). */
static void kill_tree(struct ctx *c, enum run_status why)
{
	if (!c->killing && why != RUN_OK)
		c->guard = why;
	c->killing = true;
	/* Only while the program is not reaped: then its group id cannot be anyone else's. */
	if (iotrace_tree_thread(&c->tree, c->root))
		kill(-c->root, SIGKILL);
	for (size_t b = 0; b < IOTRACE_BUCKETS; b++)
		for (struct iotrace_tproc *p = c->tree.procs[b]; p; p = p->next)
			kill(p->tgid, SIGKILL);
}

/* ---- events ---- */

static void on_task_exit(struct ctx *c, pid_t tid, int wstatus)
{
	struct iotrace_tracee *t = iotrace_tree_thread(&c->tree, tid);
	struct iotrace_tproc *p;

	if (!t)
		return; /* exited before its first stop was seen: it wrote nothing */
	p = t->proc;
	call_unfinished(c, t);
	if (tid == p->tgid) {
		struct iotrace_process *rp = &c->res->procs[p->idx];

		rp->exited = true;
		rp->wstatus = wstatus;
		p->leader_gone = true;
		iotrace_unwinder_free(p->unw);
		p->unw = NULL;
	}
	iotrace_tree_thread_remove(&c->tree, t);
	if (tid == c->root && c->tree.nr_threads > 0 && !c->killing) {
		/* The program is done: what it left behind must not run on. */
		for (size_t b = 0; b < IOTRACE_BUCKETS && !c->res->stragglers_killed; b++)
			for (struct iotrace_tproc *q = c->tree.procs[b]; q; q = q->next)
				if (iotrace_proc_running(q->tgid))
					c->res->stragglers_killed = true;
		kill_tree(c, RUN_OK);
	}
}

static void on_new_task_event(struct ctx *c, struct iotrace_tracee *t)
{
	unsigned long msg = 0;
	pid_t child;

	if (ptrace(PTRACE_GETEVENTMSG, t->tid, NULL, &msg) < 0)
		return;
	child = (pid_t)msg;
	if (child <= 0 || iotrace_tree_thread(&c->tree, child))
		return;
	/* Known before its first stop, so that the run does not end without it. */
	iotrace_tree_task_new(&c->tree, child, t->tid);
}

static void on_exec(struct ctx *c, struct iotrace_tracee *t)
{
	struct iotrace_tproc *p = t->proc;
	struct iotrace_process *rp = &c->res->procs[p->idx];
	unsigned long former = 0;

	/* A non-leader that execs takes the leader's tid; its own tid vanishes unreported. */
	if (ptrace(PTRACE_GETEVENTMSG, t->tid, NULL, &former) == 0 && (pid_t)former != t->tid) {
		struct iotrace_tracee *old = iotrace_tree_thread(&c->tree, (pid_t)former);

		if (old && old != t)
			iotrace_tree_thread_remove(&c->tree, old);
	}
	/* t may have been the old leader, in a call when the exec wiped it. */
	call_unfinished(c, t);
	p->exec_seen = true;
	rp->execs++;
	free(rp->exe);
	rp->exe = iotrace_read_exe(p->tgid);
	iotrace_unwinder_free(p->unw);
	p->unw = NULL;
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void on_stop(struct ctx *c, pid_t tid, int wstatus)
{
	struct iotrace_tracee *t = iotrace_tree_thread(&c->tree, tid);
	int sig = WSTOPSIG(wstatus), event = (unsigned)wstatus >> 16;
	siginfo_t si;
	bool first;

	if (!t)
		t = iotrace_tree_task_new(&c->tree, tid, 0);
	if (c->killing) {
		/* Its exit follows. */
		kill(tid, SIGKILL);
		return;
	}
	first = !t->seen;
	t->seen = true;
	if (sig == (SIGTRAP | 0x80)) {
		on_call_exit(c, t);
		resume(t, 0);
		return;
	}
	if (sig == SIGTRAP && event) {
		switch (event) {
		case PTRACE_EVENT_SECCOMP: on_call_entry(c, t); return;
		case PTRACE_EVENT_FORK:
		case PTRACE_EVENT_VFORK:
		case PTRACE_EVENT_CLONE: on_new_task_event(c, t); break;
		case PTRACE_EVENT_EXEC: on_exec(c, t); break;
		default: break;
		}
		resume(t, 0);
		return;
	}
	if (first && sig == SIGSTOP) {
		/* The stop every new tracee starts with. */
		resume(t, 0);
		return;
	}
	/* A group-stop (no siginfo) is not kept: the tracee would stay stopped. */
	if (is_stop_signal(sig) && ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) < 0 && errno == EINVAL)
		sig = 0;
	resume(t, sig);
}

/*
 * Polls for a report during SPIN_NS before the caller blocks in waitpid(): a traced call
 * is two stops, each a round trip between the tracee and the tracer, and waking a
 * tracer that sleeps costs more than the work in between (an inter-processor interrupt,
 * expensive under a hypervisor). sched_yield() lets a tracee that shares our CPU run.
 * Returns what waitpid() returned, 0 when nothing came.
 */
static pid_t poll_wait(int *wstatus)
{
	ns_t end = 0;
	pid_t pid;

	for (unsigned i = 0;; i++) {
		pid = waitpid(-1, wstatus, __WALL | WNOHANG);
		if (pid != 0)
			return pid;
		/* The clock only every few rounds: reading it costs as much as a poll. */
		if (i % 8 == 0) {
			ns_t now = now_ns();

			if (!end)
				end = now + SPIN_NS;
			else if (now > end)
				return 0;
		}
		sched_yield();
	}
}

/* Blocks until every task of the tree is gone. Returns 0, or -1 (printed). */
static int trace_loop(struct ctx *c)
{
	while (c->tree.nr_threads > 0) {
		int wstatus;
		pid_t pid;

		if (!c->killing && interrupt_requested())
			kill_tree(c, RUN_INTERRUPTED);
		pid = poll_wait(&wstatus);
		if (pid == 0)
			pid = waitpid(-1, &wstatus, __WALL);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			kill_tree(c, RUN_INTERRUPTED);
			return error("cannot wait for the traced processes: %s", strerror(errno));
		}
		if (pid == c->sentinel) {
			c->sentinel = -1;
			kill_tree(c, RUN_TIMEOUT);
		} else if (WIFEXITED(wstatus) || WIFSIGNALED(wstatus)) {
			on_task_exit(c, pid, wstatus);
		} else if (WIFSTOPPED(wstatus)) {
			on_stop(c, pid, wstatus);
		}
	}
	return 0;
}

/* ---- the run ---- */

/* A child that exits after timeout_s: the timeout as an event of waitpid(). */
static pid_t start_sentinel(double timeout_s)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0) {
		struct timespec ts = {.tv_sec = (time_t)timeout_s,
				      .tv_nsec = (long)((timeout_s - floor(timeout_s)) * 1e9)};

		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() == parent)
			while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
				;
		_exit(0);
	}
	return pid;
}

static void stop_sentinel(struct ctx *c)
{
	if (c->sentinel <= 0)
		return;
	kill(c->sentinel, SIGKILL);
	while (waitpid(c->sentinel, NULL, 0) < 0 && errno == EINTR)
		;
	c->sentinel = -1;
}

static void signal_name(char *buf, size_t size, int sig)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, size, "SIG%s", abbrev);
	else
		snprintf(buf, size, "signal %d", sig);
}

static void describe(struct ctx *c, const char *file, const struct iotrace_child_report *rep,
		     bool rep_ok)
{
	struct iotrace_result *r = c->res;
	const struct iotrace_process *root = &r->procs[0];
	char sig[32];

	if (rep_ok && (rep->stage == IOTRACE_STAGE_EXEC || rep->stage == IOTRACE_STAGE_CWD ||
		       rep->stage == IOTRACE_STAGE_STDIO)) {
		r->status = RUN_NOT_STARTED;
		if (rep->stage == IOTRACE_STAGE_EXEC)
			snprintf(r->detail, sizeof(r->detail), "cannot execute '%s': %s", file,
				 strerror(rep->err));
		else if (rep->stage == IOTRACE_STAGE_CWD)
			snprintf(r->detail, sizeof(r->detail),
				 "cannot change to directory '%s': %s", c->opts->cwd,
				 strerror(rep->err));
		else
			snprintf(r->detail, sizeof(r->detail),
				 "cannot set up the program's stdio: %s", strerror(rep->err));
		return;
	}
	if (c->guard != RUN_OK) {
		r->status = c->guard;
		r->signal = SIGKILL;
		if (c->guard == RUN_TIMEOUT)
			snprintf(r->detail, sizeof(r->detail),
				 "timed out after %.3f s; process tree killed with SIGKILL",
				 c->opts->timeout_s);
		else
			snprintf(r->detail, sizeof(r->detail),
				 "interrupted; process tree killed with SIGKILL");
		return;
	}
	if (!root->exited) {
		r->status = RUN_CRASHED;
		snprintf(r->detail, sizeof(r->detail), "disappeared without an exit status");
	} else if (WIFEXITED(root->wstatus)) {
		r->exit_code = WEXITSTATUS(root->wstatus);
		r->status = r->exit_code ? RUN_FAILED : RUN_OK;
		if (r->exit_code)
			snprintf(r->detail, sizeof(r->detail), "exited with status %d",
				 r->exit_code);
	} else if (WIFSIGNALED(root->wstatus)) {
		r->status = RUN_CRASHED;
		r->signal = WTERMSIG(root->wstatus);
		signal_name(sig, sizeof(sig), r->signal);
		snprintf(r->detail, sizeof(r->detail), "killed by %s (%s)", sig,
			 strsignal(r->signal));
	}
}

static int check_options(char *const argv[], const struct iotrace_options *opts)
{
	if (!argv || !argv[0] || !argv[0][0]) {
		error("I/O tracing: no program to run");
		return RP_EINPUT;
	}
	if (opts->max_depth > IOTRACE_MAX_DEPTH) {
		error("I/O tracing: stack depth %u is above the maximum of %d", opts->max_depth,
		      IOTRACE_MAX_DEPTH);
		return RP_EINPUT;
	}
	if (!(opts->timeout_s >= 0) || opts->timeout_s > 1e9) {
		error("I/O tracing: timeout %g s is not a number of seconds >= 0", opts->timeout_s);
		return RP_EINPUT;
	}
	if (!IOTRACE_ARCH_SUPPORTED) {
		error("I/O tracing is implemented for x86-64 only");
		return RP_EINTERNAL;
	}
	return RP_OK;
}

/*
 * Waits for the forked child's first stop and makes it a tracee with our options.
 * Returns 0; or the child's report stage when it failed before (*rep filled), or -1.
 */
static int attach_child(struct ctx *c, pid_t pid, int report_fd, struct iotrace_child_report *rep)
{
	const long options = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			     PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL |
			     PTRACE_O_TRACESYSGOOD;
	int wstatus;
	pid_t w;

	do
		w = waitpid(pid, &wstatus, __WALL);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return error("cannot wait for process %d: %s", (int)pid, strerror(errno));
	if (!WIFSTOPPED(wstatus)) {
		struct iotrace_tproc *p = iotrace_tree_proc_add(&c->tree, pid, 0, false);

		/* It could not get as far as its stop: its report says why. */
		c->res->procs[p->idx].exited = true;
		c->res->procs[p->idx].wstatus = wstatus;
		p->leader_gone = true;
		if (iotrace_child_report_read(report_fd, rep))
			return rep->stage;
		return error("the traced child exited before it could be traced");
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)options) < 0) {
		error("cannot set ptrace options on process %d: %s", (int)pid, strerror(errno));
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
			;
		return -1;
	}
	iotrace_tree_thread_add(&c->tree, pid, iotrace_tree_proc_add(&c->tree, pid, 0, false))
	    ->seen = true;
	return 0;
}

static void finish_result(struct ctx *c)
{
	struct iotrace_result *r = c->res;

	/* Tasks never seen to exit (waitpid failed): their calls did not return either. */
	for (size_t b = 0; b < IOTRACE_BUCKETS; b++) {
		while (c->tree.threads[b]) {
			call_unfinished(c, c->tree.threads[b]);
			iotrace_tree_thread_remove(&c->tree, c->tree.threads[b]);
		}
	}
	iotrace_table_take(&c->table, &r->entries, &r->nr_entries);
	r->unwinds_fast = c->unwind_stats.fast;
	r->unwinds_libdw = c->unwind_stats.libdw;
	r->unwind_mismatches = c->unwind_stats.mismatches;
}

int iotrace_run(char *const argv[], const struct iotrace_options *opts, struct iotrace_result *out)
{
	struct sock_filter prog[IOTRACE_FILTER_MAX];
	struct iotrace_child_report rep = {0};
	struct sock_fprog filter;
	struct ctx *c;
	int pipefd[2] = {-1, -1};
	int ret = RP_EINTERNAL, st;
	bool rep_ok = false;
	ns_t start = 0;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	out->status = RUN_NOT_STARTED;
	out->strings = iotrace_strings_new();
	ret = check_options(argv, opts);
	if (ret != RP_OK)
		return ret;
	ret = RP_EINTERNAL;
	c = xcalloc(1, sizeof(*c));
	c->opts = opts;
	c->res = out;
	c->max_depth = opts->max_depth ? opts->max_depth : IOTRACE_DEFAULT_DEPTH;
	c->scratch = xmallocarray(c->max_depth, sizeof(*c->scratch));
	c->sentinel = -1;
	iotrace_table_init(&c->table);
	c->tree.res = out;
	iotrace_filter_build(opts->reads, prog, &filter);
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		error("cannot create a pipe: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		error("cannot fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0)
		iotrace_child_main(argv, opts, &filter, pipefd[1]);
	close(pipefd[1]);
	pipefd[1] = -1;
	c->root = pid;
	st = attach_child(c, pid, pipefd[0], &rep);
	if (st == IOTRACE_STAGE_PTRACE || st == IOTRACE_STAGE_SECCOMP) {
		error("cannot trace '%s': %s failed: %s", argv[0],
		      st == IOTRACE_STAGE_PTRACE ? "ptrace(PTRACE_TRACEME)"
						 : "installing the seccomp filter",
		      strerror(rep.err));
		goto out;
	}
	if (st < 0)
		goto out;
	if (st > 0) {
		/* Failed before its stop (stdio, cwd): not started, nothing traced. */
		rep_ok = true;
	} else {
		start = now_ns();
		if (opts->timeout_s > 0 && (c->sentinel = start_sentinel(opts->timeout_s)) < 0) {
			error("cannot fork the timeout of the traced run: %s", strerror(errno));
			kill(pid, SIGKILL);
			while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
				;
			goto out;
		}
		ptrace(PTRACE_CONT, pid, NULL, NULL);
		if (trace_loop(c) < 0)
			goto out;
		out->wall_ns = now_ns() - start;
		rep_ok = iotrace_child_report_read(pipefd[0], &rep);
		if (rep_ok && rep.stage == IOTRACE_STAGE_SECCOMP) {
			error("cannot trace '%s': installing the seccomp filter failed: %s",
			      argv[0], strerror(rep.err));
			goto out;
		}
	}
	describe(c, argv[0], &rep, rep_ok);
	ret = RP_OK;
out:
	stop_sentinel(c);
	finish_result(c);
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	for (size_t b = 0; b < IOTRACE_BUCKETS; b++)
		while (c->tree.procs[b])
			iotrace_tree_proc_free(&c->tree, c->tree.procs[b]);
	iotrace_table_release(&c->table);
	free(c->scratch);
	free(c);
	return ret;
}
