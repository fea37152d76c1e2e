/* A run's output through a pipe to its log, with a size limit (output_relay.h). */
#include "collect/output_relay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/common.h"

/* The output pipe's size: a chatty child should rarely wait for revperf's copy. */
#define OUTPUT_PIPE_SIZE (1 << 20)
/* The end of a long output that the log keeps: min(TAIL_MAX, limit / 4). */
#define TAIL_MAX ((size_t)64 << 10)
/*
 * After the child exited, how long its output pipe is read at most, waiting for end of
 * file: the spawner has killed the rest of its group, so only a process that left the
 * group (setsid) can hold the pipe open that long.
 */
#define DRAIN_WAIT_NS 1000000000LL
#define DRAIN_STEP_MS 10
/* Between the kept beginning and end of a long output; no digits, so that a reported
 * metric's pattern cannot take it for a value (the counts are in the run's note). */
#define CUT_LINE "\n[revperf: output beyond the log limit was not kept; its end follows]\n"

struct output_relay {
	int pipe_fd; /* read end; -1 after end of file */
	int log_fd;  /* where the bytes go; -1: discarded */
	const char *log_path;
	bool log_failed;
	uint64_t limit, head_max; /* 0: no limit; the beginning kept */
	uint64_t total, head;	  /* bytes read; of them written as the beginning */
	char *tail;		  /* ring of the last tail_max bytes beyond the beginning */
	size_t tail_max, tail_len, tail_pos;
	bool finished; /* the kept end was written */
	output_observe_fn observe;
	void *observe_arg;
	char buf[65536]; /* read into before each write: never read uninitialized */
};

static ns_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ns_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int output_relay_new(int log_fd, const char *log_path, uint64_t limit, output_observe_fn observe,
		     void *observe_arg, struct output_relay **out, int *write_end)
{
	struct output_relay *r;
	int fd[2];

	if (pipe2(fd, O_CLOEXEC) < 0)
		return error("cannot create a pipe for the run's output: %s", strerror(errno));
	/* Not fatal: the default size only makes a chatty child wait more. */
	fcntl(fd[0], F_SETPIPE_SZ, OUTPUT_PIPE_SIZE);
	/* A new pipe's read end has no other status flag (O_CLOEXEC is a descriptor flag). */
	fcntl(fd[0], F_SETFL, O_RDONLY | O_NONBLOCK);
	/*
	 * One per run: zero the fields only, not the 64 KiB read buffer (calloc cleared it
	 * for every run, a tenth of revperf's own instructions per run of a short command).
	 */
	r = xmalloc(sizeof(*r));
	memset(r, 0, offsetof(struct output_relay, buf));
	r->pipe_fd = fd[0];
	r->log_fd = log_fd;
	r->log_path = log_path;
	r->limit = limit;
	if (limit) {
		r->tail_max = limit / 4 < TAIL_MAX ? (size_t)(limit / 4) : TAIL_MAX;
		r->head_max = limit - r->tail_max;
	}
	r->observe = observe;
	r->observe_arg = observe_arg;
	*out = r;
	*write_end = fd[1];
	return 0;
}

void output_relay_free(struct output_relay *r)
{
	if (!r)
		return;
	if (r->pipe_fd >= 0)
		close(r->pipe_fd);
	free(r->tail);
	free(r);
}

int output_relay_fd(const struct output_relay *r)
{
	return r->pipe_fd;
}

uint64_t output_relay_total(const struct output_relay *r)
{
	return r->total;
}

uint64_t output_relay_dropped(const struct output_relay *r)
{
	return r->total - r->head - r->tail_len;
}

/* Copies bytes to the log file, as the child would have written them. */
static void log_write(struct output_relay *r, const char *buf, size_t len)
{
	while (len > 0 && r->log_fd >= 0 && !r->log_failed) {
		ssize_t n = write(r->log_fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			warning("cannot write log file '%s': %s; the rest of the run's output is "
				"lost",
				r->log_path, n < 0 ? strerror(errno) : "nothing written");
			r->log_failed = true;
			return;
		}
		buf += n;
		len -= (size_t)n;
	}
}

/* Keeps the last tail_max bytes of what goes beyond the beginning. */
static void tail_push(struct output_relay *r, const char *buf, size_t len)
{
	if (!r->tail_max)
		return;
	if (!r->tail)
		r->tail = xmalloc(r->tail_max);
	if (len >= r->tail_max) {
		memcpy(r->tail, buf + len - r->tail_max, r->tail_max);
		r->tail_pos = 0;
		r->tail_len = r->tail_max;
		return;
	}
	while (len) {
		size_t k = r->tail_max - r->tail_pos;
		if (k > len)
			k = len;
		memcpy(r->tail + r->tail_pos, buf, k);
		r->tail_pos = (r->tail_pos + k) % r->tail_max;
		r->tail_len = r->tail_len + k > r->tail_max ? r->tail_max : r->tail_len + k;
		buf += k;
		len -= k;
	}
}

static void relay_bytes(struct output_relay *r, const char *buf, size_t len)
{
	r->total += len;
	if (!r->limit) {
		log_write(r, buf, len);
		return;
	}
	if (r->head < r->head_max) {
		size_t k = r->head_max - r->head < len ? (size_t)(r->head_max - r->head) : len;
		log_write(r, buf, k);
		r->head += k;
		buf += k;
		len -= k;
	}
	if (len)
		tail_push(r, buf, len);
}

/* The kept end of a long output, after the cut line when something was left out. */
static void relay_finish(struct output_relay *r)
{
	size_t first;
	if (r->finished)
		return;
	r->finished = true;
	if (!r->tail_len)
		return;
	if (output_relay_dropped(r))
		log_write(r, CUT_LINE, strlen(CUT_LINE));
	first = (r->tail_pos + r->tail_max - r->tail_len) % r->tail_max;
	if (first + r->tail_len <= r->tail_max) {
		log_write(r, r->tail + first, r->tail_len);
	} else {
		log_write(r, r->tail + first, r->tail_max - first);
		log_write(r, r->tail, r->tail_len - (r->tail_max - first));
	}
}

int output_relay_read(struct output_relay *r)
{
	ssize_t n;

	if (r->pipe_fd < 0)
		return -1;
	do
		n = read(r->pipe_fd, r->buf, sizeof(r->buf));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return 0; /* EAGAIN: nothing now */
	if (n == 0) {
		close(r->pipe_fd);
		r->pipe_fd = -1;
		return -1;
	}
	relay_bytes(r, r->buf, (size_t)n);
	if (r->observe)
		r->observe(r->observe_arg, r->buf, (size_t)n, now_ns());
	return 1;
}

bool output_relay_drain(struct output_relay *r, pid_t pgid)
{
	ns_t deadline = now_ns() + DRAIN_WAIT_NS;
	bool cut;

	while (r->pipe_fd >= 0) {
		struct pollfd pfd = {.fd = r->pipe_fd, .events = POLLIN};
		int n = poll(&pfd, 1, DRAIN_STEP_MS);

		if (n > 0) {
			output_relay_read(r);
			continue;
		}
		if (n < 0 && errno != EINTR)
			break;
		if ((kill(-pgid, 0) < 0 && errno == ESRCH) || now_ns() > deadline)
			break;
	}
	cut = r->pipe_fd >= 0;
	if (cut) {
		close(r->pipe_fd);
		r->pipe_fd = -1;
	}
	relay_finish(r);
	return cut;
}
