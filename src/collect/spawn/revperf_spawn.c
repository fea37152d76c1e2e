/*
 * revperf-spawn: the parent of every benchmark process of one revperf process.
 *
 * Why a separate process: on Linux a child's ru_maxrss includes the high-water RSS of its
 * pre-exec copy of the parent (fork copies the parent's RSS into the new mm's hiwater_rss,
 * and exec folds the old mm's hiwater into the process's maxrss, which survives exec). A
 * benchmark forked by revperf itself reported at least revperf's own RSS, which grows with
 * its SQLite and libgit2 caches. Forked from this small static process, that floor is this
 * process's RSS, below that of any dynamically linked program.
 *
 * It is kept small on purpose: no stdio streams, no malloc (one mmap per request, unmapped
 * right after the child's exec, and the children's stack, mapped once), statically linked
 * when libc.a exists, never built with sanitizers.
 * The protocol is in collect/spawn_protocol.h. Started by revperf (collect/spawner.c) with
 * the socket on SPAWN_SOCKET_FD; it exits when that socket reaches end of file, or when
 * revperf dies (PR_SET_PDEATHSIG with SPAWN_PARENT_DEATH_SIGNAL), and kills every process
 * left below it first.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/perf_open.h"
#include "collect/spawn/descendants.h"
#include "collect/spawn_protocol.h"
#include "util/banned.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* The child's stack until its exec: execvp() keeps a path buffer of about 4 KiB on it. */
#define CHILD_STACK_SIZE (64 * 1024)
#define REQUEST_BUF_MAX (64 * 1024)

/* The run in progress; child is 0 when none. */
struct spawner {
	int sock;
	pid_t self;   /* getpid(), the root of the tree of benchmark processes */
	pid_t parent; /* revperf */
	pid_t child;
	int io_fd; /* its /proc/<pid>/io, opened while it was alive; -1 if refused */
	/* The children's socket to us (one pair for all, close-on-exec): a child sends its
	 * descriptors and why it could not start on [1], we read them on [0]. */
	int child_socks[2];
	/* The buffer of a request (REQUEST_BUF_MAX at most; a larger one is mapped and
	 * unmapped for that request, so that our resident memory, the floor of every
	 * benchmark's max RSS, stays small). */
	char *req_buf;
	size_t req_cap;
	/* Our copies of the child's stdout and stderr, closed just before the report of its
	 * exit: revperf, which relays the pipe of either, sees its end and the report at
	 * once. */
	int out_fd, err_fd;
	int perf_fd[SPAWN_PERF_MAX]; /* the counters on it; -1: not asked for, or refused */
	/* Why it could not start (enum spawn_stage; 0: it exec'd) and the errno: read_child(). */
	int32_t start_stage, start_err;
	char *child_stack;	     /* CHILD_STACK_SIZE bytes, mapped once */
	/* The signals whose disposition is not the default here (ignored, or handled), which
	 * a child resets before its exec: found once (find_reset_signals()). */
	int reset[16];
	int nr_reset;
	mode_t umask; /* ours, which children inherit */
	bool last_ok; /* the last run's child exited with status 0 (SPAWN_RUN_AFTER_OK) */
	/* A request read at a child's exit (start_waiting_run()) said to stop: 1 at end of
	 * file, -1 when it was broken (printed); serve() returns then. */
	int quit;
};

/* A run request as received: the strings live in one mapping, unmapped after the fork. */
struct run_request {
	struct spawn_request hdr;
	int fd[SPAWN_FD_COUNT];
	char *map;
	size_t map_len;
	const char *cwd;
	char **argv;
	char **envp;
};

static volatile sig_atomic_t sigchld_seen, parent_death_seen;

static void on_sigchld(int sig)
{
	(void)sig;
	sigchld_seen = 1;
}

static void on_parent_death(int sig)
{
	(void)sig;
	parent_death_seen = 1;
}

/* "revperf-spawn: <message>" on stderr, without stdio buffers. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n = snprintf(buf, sizeof(buf), "revperf-spawn: ");

	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, (size_t)n) < 0)
		return;
}

static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* 0 when len bytes were read, -1 on end of file or error. */
static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_reply(const struct spawner *sp, const struct spawn_reply *rep)
{
	if (write_full(sp->sock, rep, sizeof(*rep)) == 0)
		return 0;
	/* revperf is gone (or going): nothing to report to. */
	return -1;
}

/* ---- the child, between fork and exec: async-signal-safe calls only ---- */

/* What the child gets, in our memory (it runs in it until its exec). */
struct child_args {
	const struct spawner *sp;
	const struct run_request *rq;
	pid_t parent;
	int sock;	  /* the child's end of its socket to us (close-on-exec) */
	int64_t start_ns; /* the start of the wall time */
	int told;	  /* set by the child: it sent SPAWNED to revperf itself */
	int prev_io;	  /* the run before's /proc/<pid>/io, still open here; -1: none */
};

static _Noreturn void child_fail(int sock, int stage, int err)
{
	struct spawn_child_report rep = {.kind = SPAWN_CHILD_FAILED, .stage = stage, .err = err};
	ssize_t n = send(sock, &rep, sizeof(rep), MSG_NOSIGNAL);

	(void)n;
	_exit(127);
}

/*
 * Opens /proc/self/io and the counters of the request on the child itself, and passes them
 * to the spawner (SPAWN_CHILD_FDS), which reads them once the child is gone: opened now,
 * they need no wait for the spawner (the release the child waited for cost a wake-up that
 * a loaded machine made milliseconds long, inside the wall time). /proc/self/io opened
 * before the exec stays readable by the same user after the exec of a setuid program or
 * once the child is a zombie, which a later open would not be. The counters count from
 * the exec on (enable_on_exec) and inherit to the child's children. Whatever fails to open
 * is left out (the run then has no I/O values, or no such counter).
 */
static void child_send_fds(int sock, const struct spawn_request *hdr)
{
	struct spawn_child_report rep = {.kind = SPAWN_CHILD_FDS};
	int fds[1 + SPAWN_PERF_MAX];
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(fds))];
	} control;
	struct iovec iov = {.iov_base = &rep, .iov_len = sizeof(rep)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;
	int n = 0;

	if (!(hdr->flags & SPAWN_RUN_NO_IO)) {
		fds[n] = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
		if (fds[n] >= 0) {
			rep.io = 1;
			n++;
		}
	}
	for (int i = 0; i < SPAWN_PERF_MAX; i++) {
		if (!(hdr->perf_mask & (1u << i)))
			continue;
		fds[n] = perf_open_counter(i, 0, (hdr->perf_user_only & (1u << i)) != 0);
		if (fds[n] >= 0) {
			rep.perf |= 1u << i;
			n++;
		}
	}
	/* Nothing asked for: nothing to send (the spawner's read finds nothing). */
	if (!n && (hdr->flags & SPAWN_RUN_NO_IO))
		return;
	if (n) {
		memset(&control, 0, sizeof(control));
		msg.msg_control = control.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n);
	}
	if (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0)
		return; /* the run goes on without them */
	/* Ours are close-on-exec anyway; the spawner's copies keep them open. */
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

/*
 * The child runs in our memory (CLONE_VM | CLONE_VFORK, as posix_spawn's) on its own
 * stack, while we wait for its exec or exit: no copy of our page tables, no copy-on-write
 * faults, which made a fork()ed child's start about 0.1 ms slower than hyperfine's. It
 * writes nothing of ours that we read after (environ is put back), and our handled
 * signals (SIGCHLD, the parent-death signal) are blocked until it resets them.
 */
static _Noreturn void child_main(struct child_args *a)
{
	const struct spawner *sp = a->sp;
	const struct run_request *rq = a->rq;
	struct spawn_reply spawned = {.type = SPAWN_REP_SPAWNED, .time_ns = a->start_ns};
	int sock = a->sock;
	struct sigaction dfl;
	sigset_t none;

	setpgid(0, 0);
	/*
	 * revperf learns the pid (the group to signal) before the program runs: once it runs
	 * it may kill us, and we resume only after its exec to tell it.
	 */
	spawned.pid = getpid();
	if (write_full(sp->sock, &spawned, sizeof(spawned)) == 0)
		a->told = 1;
	/*
	 * The run before's /proc/<pid>/io, which the spawner closes only after this clone
	 * (collect_child()): closed here, while the spawner's copy keeps it open, so that the
	 * last close, which releases the ended process's proc inode, is never this child's
	 * (at its exec, inside its wall time).
	 */
	if (a->prev_io >= 0)
		close(a->prev_io);
	/* Ignored dispositions survive exec; a benchmark starts with the defaults. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (int i = 0; i < sp->nr_reset; i++)
		sigaction(sp->reset[i], &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* If this process dies (even by SIGKILL) the benchmark must not run on unattended. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != a->parent)
		_exit(127);
	/* Our socket and the umask: close-on-exec, and set by the spawner (handle_run()). */
	if (dup2(rq->fd[SPAWN_FD_STDIN], STDIN_FILENO) < 0 ||
	    dup2(rq->fd[SPAWN_FD_OUT], STDOUT_FILENO) < 0 ||
	    dup2(rq->fd[SPAWN_FD_ERR], STDERR_FILENO) < 0)
		child_fail(sock, SPAWN_STAGE_SETUP, errno);
	/* revperf's working directory at the request, then the run's (relative to it). */
	if (fchdir(rq->fd[SPAWN_FD_DIR]) < 0 || (*rq->cwd && chdir(rq->cwd) < 0))
		child_fail(sock, SPAWN_STAGE_CWD, errno);
	/* A held run: revperf attaches what must be there at the exec, then releases us. */
	if (rq->hdr.flags & SPAWN_RUN_HOLD) {
		char go;
		ssize_t n;

		do
			n = read(rq->fd[SPAWN_FD_HOLD], &go, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			child_fail(sock, SPAWN_STAGE_SETUP, n < 0 ? errno : ECANCELED);
	}
	child_send_fds(sock, &rq->hdr);
	/* execvp() searches the PATH of environ: revperf's environment, not ours. */
	environ = rq->envp;
	execvp(rq->argv[0], rq->argv);
	child_fail(sock, SPAWN_STAGE_EXEC, errno);
}

static int child_start(void *arg)
{
	child_main(arg);
}

/* ---- requests ---- */

static void request_release(struct run_request *rq)
{
	for (int i = 0; i < SPAWN_FD_COUNT; i++)
		if (rq->fd[i] >= 0)
			close(rq->fd[i]);
	if (rq->map && rq->map_len) /* mapped for this request only */
		munmap(rq->map, rq->map_len);
}

/* Empty (hdr.type 0, no descriptors, nothing mapped): releasing it does nothing. */
static void request_init(struct run_request *rq)
{
	memset(rq, 0, sizeof(*rq));
	for (int i = 0; i < SPAWN_FD_COUNT; i++)
		rq->fd[i] = -1;
}

/*
 * Receives one request header with its descriptors. Returns 1 at end of file, 0 with the
 * header in rq->hdr, -1 on a broken message (printed); with MSG_DONTWAIT in flags, 2 when
 * no request is there.
 */
static int recv_header(int sock, struct run_request *rq, int *nfds, int flags)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * SPAWN_FD_COUNT)];
	} control;
	struct iovec iov = {.iov_base = &rq->hdr, .iov_len = sizeof(rq->hdr)};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control.buf,
			     .msg_controllen = sizeof(control.buf)};
	ssize_t n;

	*nfds = 0;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | flags);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return 1;
	if (n < 0 && (flags & MSG_DONTWAIT) && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 2;
	if (n < 0) {
		say("cannot read from revperf: %s", strerror(errno));
		return -1;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		*nfds = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		if (*nfds > SPAWN_FD_COUNT)
			*nfds = SPAWN_FD_COUNT;
		memcpy(rq->fd, CMSG_DATA(c), sizeof(int) * (size_t)*nfds);
	}
	if (msg.msg_flags & MSG_CTRUNC) {
		say("a request came with too many descriptors");
		return -1;
	}
	if ((size_t)n < sizeof(rq->hdr) &&
	    read_full(sock, (char *)&rq->hdr + n, sizeof(rq->hdr) - (size_t)n) < 0) {
		say("a request was cut short");
		return -1;
	}
	return 0;
}

/* Points *out at the next NUL-terminated string of [*p, end); -1 when there is none. */
static int next_string(char **p, char *end, char **out)
{
	char *nul = memchr(*p, '\0', (size_t)(end - *p));

	if (!nul)
		return -1;
	*out = *p;
	*p = nul + 1;
	return 0;
}

/* Reads and splits the payload of a run request. Returns 0, or -1 (printed). */
static int recv_payload(struct spawner *sp, struct run_request *rq)
{
	int sock = sp->sock;
	size_t need;
	const struct spawn_request *h = &rq->hdr;
	size_t strings = (size_t)h->argc + h->envc;
	size_t arrays = (strings + 2) * sizeof(char *);
	char *p, *end, **slot;

	if (h->payload_len == 0 || h->payload_len > SPAWN_PAYLOAD_MAX || h->argc == 0 ||
	    h->argc > SPAWN_STRINGS_MAX || h->envc > SPAWN_STRINGS_MAX) {
		say("a run request has bad sizes (%u arguments, %u variables, %llu bytes)", h->argc,
		    h->envc, (unsigned long long)h->payload_len);
		return -1;
	}
	need = arrays + (size_t)h->payload_len;
	if (need <= REQUEST_BUF_MAX && !sp->req_buf) {
		sp->req_buf = mmap(NULL, REQUEST_BUF_MAX, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		sp->req_cap = sp->req_buf == MAP_FAILED ? 0 : REQUEST_BUF_MAX;
		if (sp->req_buf == MAP_FAILED)
			sp->req_buf = NULL;
	}
	if (need <= sp->req_cap) {
		rq->map = sp->req_buf;
		rq->map_len = 0;
	} else {
		rq->map_len = need;
		rq->map = mmap(NULL, rq->map_len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (rq->map == MAP_FAILED) {
			rq->map = NULL;
			say("cannot map %zu bytes for a request: %s", rq->map_len, strerror(errno));
			return -1;
		}
	}
	p = rq->map + arrays;
	end = p + h->payload_len;
	if (read_full(sock, p, (size_t)h->payload_len) < 0) {
		say("a run request was cut short");
		return -1;
	}
	slot = (char **)(void *)rq->map;
	rq->argv = slot;
	rq->envp = slot + h->argc + 1;
	if (next_string(&p, end, (char **)&rq->cwd) < 0)
		goto bad;
	for (uint32_t i = 0; i < h->argc; i++)
		if (next_string(&p, end, &rq->argv[i]) < 0)
			goto bad;
	rq->argv[h->argc] = NULL;
	for (uint32_t i = 0; i < h->envc; i++)
		if (next_string(&p, end, &rq->envp[i]) < 0)
			goto bad;
	rq->envp[h->envc] = NULL;
	if (p == end)
		return 0;
bad:
	say("a run request does not hold the strings it announces");
	return -1;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void read_child(struct spawner *sp);

/* prev_io: the run before's /proc/<pid>/io while we still hold it, which the child closes
 * (-1: none). */
static void handle_run(struct spawner *sp, struct run_request *rq, int prev_io)
{
	struct spawn_reply rep = {.type = SPAWN_REP_SPAWNED, .pid = -1};
	pid_t self = sp->self;
	bool told = false;

	if (sp->child > 0) {
		/* Requests are read between runs only (serve()): a second child is a bug. */
		rep.err = EBUSY;
	} else if ((rq->hdr.flags & SPAWN_RUN_AFTER_OK) && !sp->last_ok) {
		/*
		 * Only the request right after the failed run: revperf made it before it knew of
		 * the failure, and the next ones after (it reads a run's reports before it
		 * submits the run after next).
		 */
		rep.err = ECANCELED;
		sp->last_ok = true;
	} else {
		struct child_args args = {sp, rq, self, sp->child_socks[1], 0, 0, prev_io};
		char **env = environ;
		pid_t pid;

		/* The child inherits it (a call only when revperf's changed). */
		if (sp->umask != (mode_t)rq->hdr.umask)
			umask(sp->umask = (mode_t)rq->hdr.umask);

		/* The start of the wall time: as hyperfine's, just before the fork. */
		rep.time_ns = args.start_ns = now_ns();
		pid = clone(child_start, sp->child_stack + CHILD_STACK_SIZE,
			    CLONE_VM | CLONE_VFORK | SIGCHLD, &args);
		if (pid < 0)
			rep.err = errno;
		/* Here the child has exec'd or exited; it set environ in our memory. */
		environ = env;
		told = pid > 0 && args.told;
		if (pid > 0) {
			sp->child = pid;
			sp->out_fd = rq->fd[SPAWN_FD_OUT];
			sp->err_fd = rq->fd[SPAWN_FD_ERR];
			rq->fd[SPAWN_FD_OUT] = -1;
			rq->fd[SPAWN_FD_ERR] = -1;
			rep.pid = pid;
			/* All it sends us is sent by now: read here, not between two runs. */
			read_child(sp);
		}
	}
	request_release(rq);
	request_init(rq);
	if (!told)
		send_reply(sp, &rep);
}

/*
 * Reads one run request into *rq (flags: MSG_DONTWAIT, or 0 to wait for it). Returns 0, 1
 * at end of file, -1 on a broken request (printed), 2 when MSG_DONTWAIT found none; the
 * caller releases *rq (request_release()) in any case.
 */
static int read_request(struct spawner *sp, int flags, struct run_request *rq)
{
	int nfds, r, want;

	request_init(rq);
	r = recv_header(sp->sock, rq, &nfds, flags);
	if (r != 0)
		return r;
	if (rq->hdr.type != SPAWN_REQ_RUN) {
		say("unknown request type %u", rq->hdr.type);
		return -1;
	}
	want = rq->hdr.flags & SPAWN_RUN_HOLD ? SPAWN_FD_COUNT : SPAWN_FD_COUNT - 1;
	if (nfds != want) {
		say("a run request came with %d descriptors, not %d", nfds, want);
		return -1;
	}
	return recv_payload(sp, rq) < 0 ? -1 : 0;
}

/*
 * A run request that revperf submitted while the run that just ended ran (so marked
 * SPAWN_RUN_AFTER_OK) starts now, without a return to the poll that would find it there
 * (prev_io as handle_run()'s). A request that says to stop (end of file, broken) sets
 * sp->quit for serve().
 */
static void start_waiting_run(struct spawner *sp, int prev_io)
{
	struct run_request rq;
	int r = read_request(sp, MSG_DONTWAIT, &rq);

	if (r == 0)
		handle_run(sp, &rq, prev_io);
	request_release(&rq);
	if (r == 1 || r == -1)
		sp->quit = r;
}

static int64_t timeval_us(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

/* rchar and wchar of a zombie: its own I/O plus that of the children it reaped. */
static void read_proc_io(int fd, struct spawn_reply *rep)
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
	rep->rchar = strtoll(r + 7, NULL, 10);
	rep->wchar = strtoll(w + 7, NULL, 10);
	rep->io_valid = 1;
}

/* Orphans that came back to us (we are the subreaper); nobody needs their status. */
static void reap_orphans(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/*
 * The same while the run's child is alive: the first zombie among our children is reaped
 * as long as it is not the run's child. Children are listed in the order they became ours,
 * the run's child before its orphans, so this stops if the child just exited, leaving it
 * and the rest to collect_child().
 */
static void reap_orphans_but(pid_t child)
{
	for (;;) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid <= 0 ||
		    si.si_pid == child)
			return;
		waitpid(si.si_pid, NULL, WNOHANG);
	}
}

static void sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/*
 * Waits until no live process below us is outside group keep_pgid (0: any group), for up
 * to ms, reaping the orphans that come back to us meanwhile; with sig, sends it again at
 * every look (to those forked since). Returns how many are left, or -1 when /proc cannot
 * be read.
 */
static int wait_below_gone(const struct spawner *sp, pid_t keep_pgid, int sig, int ms,
			   struct pid_seen *seen)
{
	int step = 1, waited = 0, left;

	for (;;) {
		reap_orphans();
		left = descendants_signal(sp->self, keep_pgid, sig, seen);
		if (left <= 0 || waited >= ms)
			return left;
		sleep_ms(step);
		waited += step;
		step = step * 2 < 50 ? step * 2 : 50;
	}
}

/*
 * After the child was reaped (the rest of its group got SIGKILL before): processes below us
 * that are outside its group left it (setsid, setpgid) and would outlive the run. They get
 * SIGTERM, SIGKILL after SPAWN_ESCAPED_GRACE_MS, and revperf gets their count in *rep
 * (ESCAPED), which the run keeps as a note. A look at /proc only happens when we still
 * have a child: a live process below us always has an ancestor that is our child (its
 * orphans come to us).
 */
static void hunt_escaped(struct spawner *sp, pid_t pgid, struct spawn_reply *rep)
{
	struct pid_seen *seen = NULL;
	int left = 0;

	reap_orphans();
	if (descendants_any()) {
		seen = pid_seen_new();
		left = seen ? descendants_signal(sp->self, pgid, SIGTERM, seen) : -1;
	}
	if (left > 0)
		left = wait_below_gone(sp, pgid, 0, SPAWN_ESCAPED_GRACE_MS, NULL);
	if (left > 0)
		left = wait_below_gone(sp, pgid, SIGKILL, SPAWN_ESCAPED_KILL_MS, seen);
	if (left < 0)
		rep->err = errno;
	rep->escaped = seen ? seen->count : 0;
	rep->escaped_left = left > 0 ? left : 0;
	pid_seen_free(seen);
}

/*
 * The counters, once no task of the child's group is left (an inherited counter's counts
 * are added to it as each task exits), at most SPAWN_GROUP_GONE_MS: its members got
 * SIGKILL, and the orphans among them come to us.
 */
static void read_counters(struct spawner *sp, pid_t pgid, struct spawn_reply *rep)
{
	bool any = false;

	for (int i = 0; i < SPAWN_PERF_MAX; i++)
		any |= sp->perf_fd[i] >= 0;
	if (!any)
		return;
	for (int step = 1, waited = 0;; waited += step, step = step * 2 < 50 ? step * 2 : 50) {
		reap_orphans();
		if ((kill(-pgid, 0) < 0 && errno == ESRCH) || waited >= SPAWN_GROUP_GONE_MS)
			break;
		kill(-pgid, SIGKILL);
		sleep_ms(step);
	}
	for (int i = 0; i < SPAWN_PERF_MAX; i++) {
		struct perf_reading r;

		if (sp->perf_fd[i] < 0)
			continue;
		if (perf_read_counter(sp->perf_fd[i], &r) == 0) {
			rep->perf_read |= 1u << i;
			rep->perf[i][0] = r.value;
			rep->perf[i][1] = r.time_enabled;
			rep->perf[i][2] = r.time_running;
		}
		close(sp->perf_fd[i]);
		sp->perf_fd[i] = -1;
	}
}

static void close_out(struct spawner *sp)
{
	if (sp->out_fd >= 0)
		close(sp->out_fd);
	if (sp->err_fd >= 0)
		close(sp->err_fd);
	sp->out_fd = sp->err_fd = -1;
}

/*
 * What the child sent on its socket: its descriptors (/proc/self/io, the counters), then
 * why it could not start, if it could not. Read when the clone returns: the child has
 * exec'd or exited then (CLONE_VFORK), and it sends nothing after its exec (its end is
 * close-on-exec); so this does not block, and finds all it will ever send. (It was read
 * at the exit, between two runs.)
 */
static void read_child(struct spawner *sp)
{
	for (;;) {
		struct spawn_child_report cr;
		int fds[1 + SPAWN_PERF_MAX], nfds = 0, k = 0;
		union {
			struct cmsghdr align;
			char buf[CMSG_SPACE(sizeof(fds))];
		} control;
		struct iovec iov = {.iov_base = &cr, .iov_len = sizeof(cr)};
		struct msghdr msg = {.msg_iov = &iov,
				     .msg_iovlen = 1,
				     .msg_control = control.buf,
				     .msg_controllen = sizeof(control.buf)};
		ssize_t n;

		do
			n = recvmsg(sp->child_socks[0], &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)sizeof(cr))
			return;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			nfds = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			if (nfds > (int)ARRAY_SIZE(fds))
				nfds = (int)ARRAY_SIZE(fds);
			memcpy(fds, CMSG_DATA(c), sizeof(int) * (size_t)nfds);
		}
		if (cr.kind == SPAWN_CHILD_FAILED) {
			sp->start_stage = cr.stage;
			sp->start_err = cr.err;
		}
		if (cr.kind == SPAWN_CHILD_FDS && cr.io && k < nfds)
			sp->io_fd = fds[k++];
		for (int i = 0; cr.kind == SPAWN_CHILD_FDS && i < SPAWN_PERF_MAX; i++)
			if ((cr.perf & (1u << i)) && k < nfds)
				sp->perf_fd[i] = fds[k++];
		while (k < nfds)
			close(fds[k++]);
	}
}

/*
 * The run's child exited: the end time, /proc/<pid>/io while it is a zombie, then the rest
 * of its group is killed (while the zombie still holds the group id, so the id cannot have
 * been reused), then it is reaped and everything is reported to revperf (REAPED), which
 * waits for the group to disappear. Then the processes that left the group are found and
 * killed, and the counters read (ESCAPED). When nothing is left below us, both reports go
 * in one write: one wake-up of revperf. Then, when the child exited with status 0 and
 * revperf already submitted the next run, that run starts at once (start_waiting_run()),
 * and only then is the ended run's /proc/<pid>/io closed: that close, about 4 us here,
 * releases the reaped process's proc inode, and it was between the two runs.
 */
static void collect_child(struct spawner *sp)
{
	struct spawn_reply rep[2] = {{.type = SPAWN_REP_REAPED, .pid = sp->child},
				     {.type = SPAWN_REP_ESCAPED, .pid = sp->child}};
	pid_t pid = sp->child;
	int io_fd = sp->io_fd;
	struct rusage ru;
	int wstatus = 0;
	bool sent = false;
	pid_t got;

	rep[0].time_ns = now_ns();
	/* What the child sent before its exec was read at the clone (read_child()). */
	rep[0].start_stage = sp->start_stage;
	rep[0].start_err = sp->start_err;
	sp->start_stage = sp->start_err = 0;
	read_proc_io(io_fd, &rep[0]);
	kill(-pid, SIGKILL);
	do
		got = wait4(pid, &wstatus, 0, &ru);
	while (got < 0 && errno == EINTR);
	if (got != pid) {
		rep[0].err = errno;
	} else {
		/* Decided before the orphans are reaped: what is left outlived the child. */
		rep[0].group_left = kill(-pid, 0) == 0;
		rep[0].wstatus = wstatus;
		rep[0].utime_us = timeval_us(ru.ru_utime);
		rep[0].stime_us = timeval_us(ru.ru_stime);
		rep[0].maxrss_kb = ru.ru_maxrss;
		rep[0].minflt = ru.ru_minflt;
		rep[0].majflt = ru.ru_majflt;
		rep[0].nvcsw = ru.ru_nvcsw;
		rep[0].nivcsw = ru.ru_nivcsw;
	}
	sp->last_ok =
	    got == pid && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 && !rep[0].start_stage;
	sp->io_fd = -1;
	sp->child = 0;
	/* Usually nothing is below us now: one look, and no hunt. */
	if (descendants_any()) {
		reap_orphans();
		if (descendants_any()) {
			/* Something is left: the hunt may take seconds, revperf learns of the
			 * exit first. */
			if (io_fd >= 0)
				close(io_fd);
			io_fd = -1;
			close_out(sp);
			send_reply(sp, &rep[0]);
			sent = true;
			hunt_escaped(sp, pid, &rep[1]);
		}
	}
	read_counters(sp, pid, &rep[1]);
	close_out(sp);
	if (sent) {
		send_reply(sp, &rep[1]);
	} else if (write_full(sp->sock, rep, sizeof(rep)) == 0 && sp->last_ok) {
		/*
		 * Nothing of the run is left below us (no straggler of its group, nothing
		 * that escaped it to be hunted), and it succeeded: the next run starts now if
		 * revperf submitted it. Not before the report: that write and the close of the
		 * output pipe just before wake revperf, which then stores the run while the
		 * next one runs; woken after the next clone instead (tried: about 15 us less
		 * between two runs with the other work held off), it started beside that child
		 * on a loaded machine and made the wall time of /bin/true 0.3-0.4 ms longer
		 * (bench/RESULTS.md, "Spawner path").
		 */
		start_waiting_run(sp, io_fd);
	}
	/* Our copy is the last one now (the next child closed its own before its exec). */
	if (io_fd >= 0)
		close(io_fd);
}

/* After a SIGCHLD: the run's child, and orphans. */
static void on_children(struct spawner *sp)
{
	if (sp->child > 0) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)sp->child, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == sp->child) {
			collect_child(sp); /* and the orphans with it */
			return;
		}
		reap_orphans_but(sp->child);
		return;
	}
	reap_orphans();
}

/* Serves requests until end of file or revperf's death (0), or a broken request (-1). */
static int serve(struct spawner *sp)
{
	sigset_t none;

	sigemptyset(&none);
	for (;;) {
		struct run_request rq;
		struct pollfd pfd = {.fd = sp->sock, .events = POLLIN};
		int r;

		if (sigchld_seen) {
			sigchld_seen = 0;
			on_children(sp);
		}
		/* A request read at a child's exit said so (start_waiting_run()). */
		if (sp->quit)
			return sp->quit > 0 ? 0 : -1;
		/*
		 * Not while a child runs: a request that comes then (the next run, submitted
		 * early) waits in the socket until the child is collected, without waking us.
		 * End of file (revperf stopped us) still does: POLLHUP is always reported.
		 */
		if (sp->child > 0)
			pfd.events = 0;
		/* The signal says that the thread that started us ended: revperf is gone. */
		if (parent_death_seen && getppid() != sp->parent)
			return 0;
		/* The signals are blocked except in here, so that none is lost between checks. */
		if (ppoll(&pfd, 1, NULL, &none) < 0) {
			if (errno == EINTR)
				continue;
			say("cannot poll the socket: %s", strerror(errno));
			return -1;
		}
		r = read_request(sp, 0, &rq);
		if (r == 0)
			handle_run(sp, &rq, -1);
		request_release(&rq);
		if (r != 0)
			return r > 0 ? 0 : -1;
	}
}

/*
 * Of the signals a program expects at their default, those that are not here: ignored by
 * us (or by whoever started revperf: ignored survives exec) or handled by us. Handled ones
 * are reset by the exec itself, but the child runs in our memory until then.
 */
static void find_reset_signals(struct spawner *sp)
{
	static const int candidates[] = {SIGPIPE, SIGINT,  SIGQUIT, SIGTERM, SIGHUP,  SIGCHLD,
					 SIGTSTP, SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2, SIGALRM};
	sp->nr_reset = 0;
	for (size_t i = 0; i < ARRAY_SIZE(candidates); i++) {
		struct sigaction old;

		if (sigaction(candidates[i], NULL, &old) < 0 || old.sa_handler != SIG_DFL)
			sp->reset[sp->nr_reset++] = candidates[i];
	}
}

static int setup_signals(void)
{
	/* revperf handles interrupts and then stops the run through us: we must outlive it. */
	static const int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
	struct sigaction sa;
	sigset_t handled;
	int ret;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	for (size_t i = 0; i < ARRAY_SIZE(ignored); i++)
		sigaction(ignored[i], &sa, NULL);
	sigemptyset(&handled);
	sigaddset(&handled, SIGCHLD);
	sigaddset(&handled, SPAWN_PARENT_DEATH_SIGNAL);
	/* Blocked before the handlers exist, unblocked only inside ppoll(). */
	ret = sigprocmask(SIG_SETMASK, &handled, NULL);
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_NOCLDSTOP;
	ret |= sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = on_parent_death;
	sa.sa_flags = 0;
	return ret | sigaction(SPAWN_PARENT_DEATH_SIGNAL, &sa, NULL);
}

/*
 * revperf is gone (or stopped us): nothing of its runs may go on. The child's group first,
 * then whatever else is below us, until nothing is left or SPAWN_ESCAPED_KILL_MS passed.
 */
static void kill_everything_below(struct spawner *sp)
{
	if (sp->child > 0) {
		kill(-sp->child, SIGKILL);
		kill(sp->child, SIGKILL);
	}
	if (descendants_any())
		wait_below_gone(sp, 0, SIGKILL, SPAWN_ESCAPED_KILL_MS, NULL);
}

int main(int argc, char **argv)
{
	struct spawner sp = {
	    .sock = SPAWN_SOCKET_FD, .io_fd = -1, .out_fd = -1, .err_fd = -1, .last_ok = true};
	struct spawn_reply hello = {.type = SPAWN_REP_HELLO};
	struct stat st;
	char *end;
	long parent;
	int ret;

	if (argc != 3 || strcmp(argv[1], SPAWN_ARG_MAGIC)) {
		say("runs the benchmarks of revperf, which starts it; not meant to be run by hand");
		return 2;
	}
	parent = strtol(argv[2], &end, 10);
	if (*end)
		return 1;
	if (setup_signals() < 0) {
		say("cannot set up: %s", strerror(errno));
		return 3;
	}
	/*
	 * Told when revperf dies, even by SIGKILL, so that the run dies with it. Not SIGKILL
	 * itself: that would leave the child's descendants running.
	 */
	prctl(PR_SET_PDEATHSIG, SPAWN_PARENT_DEATH_SIGNAL, 0, 0, 0);
	if (getppid() != (pid_t)parent)
		return 1;
	sp.self = getpid();
	sp.parent = (pid_t)parent;
	for (int i = 0; i < SPAWN_PERF_MAX; i++)
		sp.perf_fd[i] = -1;
	find_reset_signals(&sp);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp.child_socks) < 0) {
		say("cannot create the children's socket: %s", strerror(errno));
		return 3;
	}
	sp.umask = umask(022);
	umask(sp.umask);
	sp.child_stack = mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (sp.child_stack == MAP_FAILED) {
		say("cannot map a stack for the children: %s", strerror(errno));
		return 3;
	}
	if (fstat(sp.sock, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		say("descriptor %d is not revperf's socket", SPAWN_SOCKET_FD);
		return 2;
	}
	/* Benchmarks must not inherit it (the child also closes it before exec). */
	if (fcntl(sp.sock, F_SETFD, FD_CLOEXEC) < 0) {
		say("cannot set up: %s", strerror(errno));
		return 3;
	}
	/* Orphaned descendants of benchmarks come back to us and are reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	hello.pid = sp.self;
	hello.wstatus = SPAWN_PROTOCOL_VERSION;
	if (send_reply(&sp, &hello) < 0)
		return 1;
	ret = serve(&sp);
	/* revperf is gone: so must be the run it left. */
	kill_everything_below(&sp);
	return ret < 0 ? 3 : 0;
}
