#include "collect/spawner.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect/helper_path.h"
#include "collect/spawn_protocol.h"
#include "util/common.h"

/* How long a starting spawner may take to say hello. */
#define HELLO_TIMEOUT_MS 10000
/* The hello's type, err, pid and version: the same in every protocol version. */
#define HELLO_HEAD (offsetof(struct spawn_reply, wstatus) + sizeof(int32_t))
/* How long a stopped spawner may take to exit before it gets SIGKILL. */
#define STOP_WAIT_MS 1000

/*
 * The one spawner of this process (see spawner.h for why this is global). pid 0: none.
 * path is kept for the messages about its death. escapes_pending: the pid of a child whose
 * REAPED report was read and whose ESCAPED report was not yet (0: none).
 */
static struct {
	pid_t pid;
	int sock;
	pid_t escapes_pending;
	int unfinished; /* runs submitted whose last report (or cancellation) is unread */
	bool pinned;	/* cpus: its CPUs (spawner_cpus()) */
	cpu_set_t cpus;
	char path[PATH_MAX];
} sp = {.pid = 0, .sock = -1};

/* $REVPERF_SPAWN, else revperf-spawn beside the running executable (helper_path.h). */
static int spawner_path(char *buf, size_t size)
{
	struct strbuf path = STRBUF_INIT;
	int ret = 0;
	if (helper_find(&helper_spawner, &path))
		ret = -1;
	else if ((size_t)snprintf(buf, size, "%s", path.buf) >= size)
		ret = error("the path of revperf-spawn is longer than %zu bytes: %s", size - 1,
			    path.buf);
	strbuf_release(&path);
	return ret;
}

int spawner_find(struct strbuf *path)
{
	return helper_find(&helper_spawner, path);
}

static void describe_wait_status(char *buf, size_t size, int wstatus)
{
	if (WIFEXITED(wstatus))
		snprintf(buf, size, "exited with status %d", WEXITSTATUS(wstatus));
	else if (WIFSIGNALED(wstatus))
		snprintf(buf, size, "was killed by signal %d (%s)", WTERMSIG(wstatus),
			 strsignal(WTERMSIG(wstatus)));
	else
		snprintf(buf, size, "ended with wait status %#x", (unsigned)wstatus);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/*
 * Waits up to ms for the spawner to exit, then kills it; reaps it either way. Returns its
 * wait status, with *killed telling whether it had to be killed.
 */
static int reap_spawner(pid_t pid, int ms, bool *killed)
{
	int wstatus = 0;

	*killed = false;
	for (int waited = 0;; waited++) {
		pid_t got = waitpid(pid, &wstatus, WNOHANG);

		if (got == pid || (got < 0 && errno != EINTR))
			return wstatus;
		if (waited >= ms) {
			kill(pid, SIGKILL);
			*killed = true;
			while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
				;
			return wstatus;
		}
		sleep_ms(1);
	}
}

/* Closes the socket, reaps the spawner and forgets it. Returns its wait status. */
static int forget_spawner(bool *killed)
{
	pid_t pid = sp.pid;

	close(sp.sock);
	sp.sock = -1;
	sp.pid = 0;
	sp.escapes_pending = 0;
	sp.unfinished = 0;
	/* Without its socket it exits at once; a hung one is killed after STOP_WAIT_MS. */
	return reap_spawner(pid, STOP_WAIT_MS, killed);
}

/* The spawner stopped answering: report it, reap it, and forget it. Returns -1. */
static int spawner_lost(const char *doing)
{
	char how[96] = "did not exit and was killed";
	pid_t pid = sp.pid;
	bool killed;
	int wstatus = forget_spawner(&killed);

	if (!killed)
		describe_wait_status(how, sizeof(how), wstatus);
	return error("the process spawner %s (pid %d) stopped while %s: it %s; the run was "
		     "abandoned (a new spawner starts with the next run)",
		     sp.path, (int)pid, doing, how);
}

static int send_all(const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(sp.sock, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads len bytes; 0, or -1 at end of file or on an error. */
static int recv_bytes(void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = recv(sp.sock, (char *)buf + got, len - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* Reads one whole reply; 0, or -1 at end of file or on an error. */
static int recv_reply(struct spawn_reply *rep)
{
	return recv_bytes(rep, sizeof(*rep));
}

/* The reply of the given type. Returns 0 or -1 (printed). */
static int expect_reply(uint32_t type, struct spawn_reply *rep, const char *doing)
{
	if (recv_reply(rep) < 0)
		return spawner_lost(doing);
	if (rep->type != type) {
		bool killed;

		error("the process spawner %s sent message type %u while %s (expected %u), so it "
		      "was stopped; is it a revperf-spawn from another build?",
		      sp.path, rep->type, doing, type);
		forget_spawner(&killed);
		return -1;
	}
	return 0;
}

/* In the forked child of revperf, until exec: async-signal-safe calls only. */
static _Noreturn void exec_spawner(const char *path, char *const argv[], int sock, int devnull)
{
	/* Refused sets were refused to revperf first (cpu_pin_apply()): no check here. */
	if (sp.pinned)
		sched_setaffinity(0, sizeof(sp.cpus), &sp.cpus);
	struct spawn_reply rep = {.type = SPAWN_REP_HELLO, .pid = -1};
	ssize_t n;
	/* Out of the way of 0, 1 and 3 first, so that no dup2() below is a no-op. */
	int s = fcntl(sock, F_DUPFD, 10);
	int null = fcntl(devnull, F_DUPFD, 10);

	if (s < 0 || null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0 ||
	    dup2(s, SPAWN_SOCKET_FD) < 0) {
		rep.err = errno;
		goto fail;
	}
	/* Nothing of revperf's but stderr and the socket reaches the spawner or benchmarks. */
	if (syscall(SYS_close_range, SPAWN_SOCKET_FD + 1, ~0U, 0) < 0)
		for (int fd = SPAWN_SOCKET_FD + 1; fd < 65536; fd++)
			close(fd);
	execv(path, argv);
	rep.err = errno;
	s = SPAWN_SOCKET_FD;
fail:
	n = write(s, &rep, sizeof(rep));
	UNUSED(n);
	_exit(127);
}

/* Waits for the hello of a starting spawner. Returns 0 or -1 (printed). */
static int await_hello(void)
{
	struct pollfd pfd = {.fd = sp.sock, .events = POLLIN};
	struct spawn_reply rep;
	int n;

	do
		n = poll(&pfd, 1, HELLO_TIMEOUT_MS);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return error("the process spawner %s did not answer within %d s; is it revperf's "
			     "revperf-spawn?",
			     sp.path, HELLO_TIMEOUT_MS / 1000);
	/*
	 * The fields up to the version first: every protocol version starts its replies with
	 * them, and a spawner of another version may send a reply of another size.
	 */
	memset(&rep, 0, sizeof(rep));
	if (n < 0 || recv_bytes(&rep, HELLO_HEAD) < 0)
		return error("the process spawner %s exited at its start (see its messages above, "
			     "if any); is it revperf's revperf-spawn?",
			     sp.path);
	if (rep.type == SPAWN_REP_HELLO && rep.err)
		return error("cannot start the process spawner %s: %s; it is built with revperf "
			     "(target revperf-spawn) and installed beside it (docs/install.md), or "
			     "named by the environment variable REVPERF_SPAWN",
			     sp.path, strerror(rep.err));
	if (rep.type != SPAWN_REP_HELLO || rep.wstatus != SPAWN_PROTOCOL_VERSION)
		return error("the process spawner %s speaks another protocol (version %d, not %d): "
			     "rebuild revperf-spawn with this revperf",
			     sp.path, rep.type == SPAWN_REP_HELLO ? (int)rep.wstatus : -1,
			     SPAWN_PROTOCOL_VERSION);
	if (recv_bytes((char *)&rep + HELLO_HEAD, sizeof(rep) - HELLO_HEAD) < 0)
		return error("the process spawner %s exited at its start (see its messages above, "
			     "if any); is it revperf's revperf-spawn?",
			     sp.path);
	return 0;
}

static int spawner_start(void)
{
	char parent[24];
	char *argv[] = {sp.path, (char *)SPAWN_ARG_MAGIC, parent, NULL};
	int sv[2] = {-1, -1}, devnull = -1, ret = -1;
	pid_t pid;

	if (spawner_path(sp.path, sizeof(sp.path)) < 0)
		return -1;
	snprintf(parent, sizeof(parent), "%d", (int)getpid());
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0) {
		error("cannot open /dev/null: %s", strerror(errno));
		goto out;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		error("cannot create a socket pair: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		error("cannot fork the process spawner: %s", strerror(errno));
		goto out;
	}
	if (pid == 0)
		exec_spawner(sp.path, argv, sv[1], devnull);
	sp.pid = pid;
	sp.sock = sv[0];
	sv[0] = -1;
	close(sv[1]);
	sv[1] = -1;
	if (await_hello() < 0) {
		bool killed;

		forget_spawner(&killed);
		goto out;
	}
	ret = 0;
out:
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	if (devnull >= 0)
		close(devnull);
	return ret;
}

/* True when the environment string e ("NAME=...") sets a name that one of set sets. */
static bool env_overridden(const char *e, const char *const *set)
{
	const char *eq = strchr(e, '=');
	size_t len = eq ? (size_t)(eq - e) : strlen(e);
	for (; set && *set; set++)
		if (!strncmp(*set, e, len) && (*set)[len] == '=')
			return true;
	return false;
}

/* cwd, then argv, then environ with run->env_set applied, each NUL-terminated. */
static void build_payload(struct strbuf *sb, const struct spawner_run *run, uint32_t *argc,
			  uint32_t *envc)
{
	const char *cwd = run->cwd ? run->cwd : "";

	strbuf_add(sb, cwd, strlen(cwd) + 1);
	for (*argc = 0; run->argv[*argc]; (*argc)++)
		strbuf_add(sb, run->argv[*argc], strlen(run->argv[*argc]) + 1);
	*envc = 0;
	for (char **e = environ; e && *e; e++) {
		if (env_overridden(*e, run->env_set))
			continue;
		strbuf_add(sb, *e, strlen(*e) + 1);
		(*envc)++;
	}
	for (const char *const *e = run->env_set; e && *e; e++, (*envc)++)
		strbuf_add(sb, *e, strlen(*e) + 1);
}

/*
 * The header with the descriptors, then the payload, in one call when the socket takes it
 * all. Returns 0, or -1 with errno set.
 */
static int send_request(const struct spawn_request *req, const int fds[SPAWN_FD_COUNT],
			const struct strbuf *payload)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * SPAWN_FD_COUNT)];
	} control;
	struct iovec iov[2] = {{.iov_base = (void *)req, .iov_len = sizeof(*req)},
			       {.iov_base = payload->buf, .iov_len = payload->len}};
	struct msghdr msg = {.msg_iov = iov,
			     .msg_iovlen = 2,
			     .msg_control = control.buf,
			     .msg_controllen = sizeof(control.buf)};
	struct cmsghdr *c;
	/* The hold socket only for a held run. */
	size_t nfds = req->flags & SPAWN_RUN_HOLD ? SPAWN_FD_COUNT : SPAWN_FD_COUNT - 1;
	size_t sent;
	ssize_t n;

	memset(&control, 0, sizeof(control));
	msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	do
		n = sendmsg(sp.sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	/* The descriptors went with the first bytes; the rest (a large environment) is data. */
	sent = (size_t)n;
	if (sent < sizeof(*req)) {
		if (send_all((const char *)req + sent, sizeof(*req) - sent))
			return -1;
		sent = sizeof(*req);
	}
	return send_all(payload->buf + (sent - sizeof(*req)), payload->len - (sent - sizeof(*req)));
}

int spawner_submit(const struct spawner_run *run)
{
	struct spawn_request req = {.type = SPAWN_REQ_RUN};
	struct strbuf payload = STRBUF_INIT;
	int fds[SPAWN_FD_COUNT];
	int dir_fd = -1, wstatus = 0, ret = -1;
	mode_t mask;

	/* Noticed between runs only: a run in flight would read another spawner's reports. */
	if (sp.pid > 0 && !sp.unfinished && waitpid(sp.pid, &wstatus, WNOHANG) == sp.pid) {
		char how[96];

		describe_wait_status(how, sizeof(how), wstatus);
		warning("the process spawner %s (pid %d) %s since the last run; starting a new one",
			sp.path, (int)sp.pid, how);
		close(sp.sock);
		sp.sock = -1;
		sp.pid = 0;
		sp.escapes_pending = 0;
	}
	if (sp.pid <= 0 && spawner_start() < 0)
		goto out;
	dir_fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0) {
		error("cannot open the current directory: %s", strerror(errno));
		goto out;
	}
	build_payload(&payload, run, &req.argc, &req.envc);
	if (payload.len > SPAWN_PAYLOAD_MAX || req.argc > SPAWN_STRINGS_MAX ||
	    req.envc > SPAWN_STRINGS_MAX) {
		error("the command, its directory and the environment take %zu bytes in %u "
		      "arguments and %u variables; at most %llu bytes and %u of each can be run",
		      payload.len, req.argc, req.envc, (unsigned long long)SPAWN_PAYLOAD_MAX,
		      SPAWN_STRINGS_MAX);
		goto out;
	}
	req.payload_len = payload.len;
	/* There is no call that only reads the umask (revperf is single-threaded here). */
	mask = umask(022);
	umask(mask);
	req.umask = (uint32_t)mask;
	req.perf_mask = run->perf_mask;
	req.perf_user_only = run->perf_user_only;
	/* Behind a run not yet finished: it starts only if that one exits with status 0. */
	if (sp.unfinished)
		req.flags |= SPAWN_RUN_AFTER_OK;
	fds[SPAWN_FD_STDIN] = run->stdin_fd;
	fds[SPAWN_FD_OUT] = run->out_fd;
	fds[SPAWN_FD_ERR] = run->err_fd;
	fds[SPAWN_FD_DIR] = dir_fd;
	fds[SPAWN_FD_HOLD] = run->hold_fd;
	if (run->hold_fd >= 0)
		req.flags |= SPAWN_RUN_HOLD;
	if (run->no_io)
		req.flags |= SPAWN_RUN_NO_IO;
	if (send_request(&req, fds, &payload) < 0) {
		spawner_lost("receiving a run request");
		goto out;
	}
	sp.unfinished++;
	ret = 0;
out:
	if (dir_fd >= 0)
		close(dir_fd);
	strbuf_release(&payload);
	return ret;
}

int spawner_started(pid_t *pid, int64_t *start_ns)
{
	struct spawn_reply rep;

	if (sp.pid <= 0)
		return error("the process spawner is gone: the run was abandoned");
	/* A caller that gave up on its run (an internal error) may have left it unread. */
	if (sp.escapes_pending && spawner_wait_escapes(sp.escapes_pending, NULL) < 0)
		return -1;
	if (expect_reply(SPAWN_REP_SPAWNED, &rep, "starting a run") < 0)
		return -1;
	if (rep.pid <= 0) {
		sp.unfinished--;
		if (rep.err == ECANCELED)
			return 1;
		return error("the process spawner cannot fork: %s", strerror(rep.err));
	}
	*pid = rep.pid;
	*start_ns = rep.time_ns;
	return 0;
}

int spawner_fd(void)
{
	return sp.sock;
}

static struct timeval us_timeval(int64_t us)
{
	struct timeval tv = {.tv_sec = (time_t)(us / 1000000),
			     .tv_usec = (suseconds_t)(us % 1000000)};
	return tv;
}

int spawner_wait(pid_t pid, struct spawner_exit *ex)
{
	struct spawn_reply rep;

	if (sp.pid <= 0)
		return -1;
	if (expect_reply(SPAWN_REP_REAPED, &rep, "a benchmark ran") < 0)
		return -1;
	/* The second report follows whatever this one says. */
	sp.escapes_pending = rep.pid;
	if (rep.pid != pid)
		return error("the process spawner reported on process %d, not %d", (int)rep.pid,
			     (int)pid);
	if (rep.err)
		return error("the process spawner cannot reap process %d: %s", (int)pid,
			     strerror(rep.err));
	if (ex) {
		memset(ex, 0, sizeof(*ex));
		ex->wstatus = rep.wstatus;
		ex->ru.ru_utime = us_timeval(rep.utime_us);
		ex->ru.ru_stime = us_timeval(rep.stime_us);
		ex->ru.ru_maxrss = rep.maxrss_kb;
		ex->ru.ru_minflt = rep.minflt;
		ex->ru.ru_majflt = rep.majflt;
		ex->ru.ru_nvcsw = rep.nvcsw;
		ex->ru.ru_nivcsw = rep.nivcsw;
		ex->group_left = rep.group_left != 0;
		ex->io_valid = rep.io_valid != 0;
		ex->rchar = rep.rchar;
		ex->wchar = rep.wchar;
		ex->end_ns = rep.time_ns;
		ex->start_stage = rep.start_stage;
		ex->start_err = rep.start_err;
	}
	return 0;
}

int spawner_wait_escapes(pid_t pid, struct spawner_escapes *esc)
{
	struct spawn_reply rep;

	if (sp.pid <= 0)
		return -1;
	if (expect_reply(SPAWN_REP_ESCAPED, &rep, "killing what a benchmark left running") < 0)
		return -1;
	sp.escapes_pending = 0;
	sp.unfinished--;
	if (rep.pid != pid)
		return error("the process spawner reported on the processes left by process %d, "
			     "not %d",
			     (int)rep.pid, (int)pid);
	if (rep.err)
		warning("the process spawner cannot look for processes that left the group of "
			"process %d in /proc: %s; any that did were not killed",
			(int)pid, strerror(rep.err));
	if (esc) {
		esc->killed = rep.escaped;
		esc->left = rep.escaped_left;
		esc->perf_read = rep.perf_read;
		memcpy(esc->perf, rep.perf, sizeof(esc->perf));
	}
	return 0;
}

void spawner_cpus(const cpu_set_t *set)
{
	spawner_stop();
	sp.pinned = set != NULL;
	if (set)
		sp.cpus = *set;
}

bool spawner_running(void)
{
	return sp.pid > 0;
}

void spawner_stop(void)
{
	bool killed;

	if (sp.pid > 0)
		forget_spawner(&killed);
}
