#include "util/input.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/common.h"
#include "util/interrupt.h"

#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

/* The caps; docs/limits.md says the same, with the reasons. */
const struct input_kind input_config = {"configuration", 1 * MIB, 0,
					"run `revperf init` to write one, or pass --config FILE"};
const struct input_kind input_profile = {"profile", 2 * GIB, INPUT_STDIN_OK | INPUT_DIR_OK, NULL};
const struct input_kind input_io_profile = {"I/O profile", 1 * GIB, INPUT_STDIN_OK | INPUT_DIR_OK,
					    NULL};
const struct input_kind input_results = {"result file", 256 * MIB, INPUT_STDIN_OK, NULL};
const struct input_kind input_counters = {"counter CSV", 1 * GIB, INPUT_STDIN_OK, NULL};
const struct input_kind input_binary = {"binary", 4 * GIB, 0, NULL};
const struct input_kind input_state = {"state file", 256 * MIB, 0, NULL};
const struct input_kind input_log = {"log", 64 * MIB, 0, NULL};
const struct input_kind input_run_log = {"run log", UINT64_MAX, 0, NULL};
const struct input_kind input_test_list = {"test list", 16 * MIB, 0, NULL};

/* Bytes asked of each read(): large enough for few system calls, small enough to notice an
 * interrupt soon. */
#define CHUNK_BYTES ((size_t)1 << 20)
#define MIN_CHUNK_BYTES ((size_t)64 << 10)

void input_add_size(struct strbuf *sb, uint64_t bytes)
{
	static const struct {
		uint64_t unit;
		const char *name;
	} units[] = {{GIB, "GiB"}, {MIB, "MiB"}, {KIB, "KiB"}};
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (bytes >= units[i].unit && bytes % units[i].unit == 0) {
			strbuf_addf(sb, "%llu %s", (unsigned long long)(bytes / units[i].unit),
				    units[i].name);
			return;
		}
	strbuf_addf(sb, "%llu bytes", (unsigned long long)bytes);
}

/* What a file that is neither regular nor a directory is, for messages. */
static const char *special_name(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a named pipe (FIFO)";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* "'path'", or "'-' (standard input)". */
static void add_name(struct strbuf *sb, const struct input *in)
{
	strbuf_addf(sb, "'%s'%s", in->path, in->is_stdin ? " (standard input)" : "");
}

/* One message: to *why, or printed with error(). Returns RP_EINPUT. */
static int refuse(struct strbuf *why, struct strbuf *msg)
{
	if (why)
		strbuf_add(why, msg->buf, msg->len);
	else
		error("%s", msg->buf);
	strbuf_release(msg);
	return RP_EINPUT;
}

static void add_too_large(struct strbuf *msg, const struct input *in)
{
	strbuf_addf(msg, "%s ", in->kind->what);
	add_name(msg, in);
	strbuf_addstr(msg, " is larger than ");
	input_add_size(msg, in->kind->max_bytes);
	strbuf_addf(msg, ", the limit for a %s (docs/limits.md); is it the right file?",
		    in->kind->what);
}

/*
 * Checks the type (and size) of what st describes; 0 or RP_EINPUT with the message in msg.
 */
static int check_stat(struct input *in, const struct stat *st, struct strbuf *msg)
{
	const struct input_kind *k = in->kind;

	if (S_ISDIR(st->st_mode)) {
		if ((k->flags & INPUT_DIR_OK) && !in->is_stdin) {
			in->is_dir = true;
			return 0;
		}
		strbuf_addf(msg, "%s ", k->what);
		add_name(msg, in);
		strbuf_addstr(msg, " is a directory, not a file");
		if (k->hint)
			strbuf_addf(msg, "; %s", k->hint);
		return RP_EINPUT;
	}
	if (S_ISREG(st->st_mode)) {
		in->size = (int64_t)st->st_size;
		if ((uint64_t)st->st_size > k->max_bytes) {
			add_too_large(msg, in);
			return RP_EINPUT;
		}
		return 0;
	}
	if (in->is_stdin)
		return 0; /* a pipe or a terminal: read with the cap */
	strbuf_addf(msg, "%s ", k->what);
	add_name(msg, in);
	strbuf_addf(
	    msg, " is %s, not a regular file; save it to a file first%s", special_name(st->st_mode),
	    k->flags & INPUT_STDIN_OK ? ", or give '-' and redirect standard input from it" : "");
	return RP_EINPUT;
}

int input_open_why(struct input *in, const char *path, const struct input_kind *kind,
		   struct strbuf *why)
{
	struct strbuf msg = STRBUF_INIT;
	struct stat st;

	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->size = -1;
	in->path = path;
	in->kind = kind;
	if (!strcmp(path, "-")) {
		if (!(kind->flags & INPUT_STDIN_OK)) {
			strbuf_addf(&msg, "a %s cannot come from standard input ('-'): name a file",
				    kind->what);
			return refuse(why, &msg);
		}
		in->is_stdin = true;
		if (fstat(STDIN_FILENO, &st)) {
			strbuf_addf(&msg, "cannot read %s from standard input: %s", kind->what,
				    strerror(errno));
			return refuse(why, &msg);
		}
		if (check_stat(in, &st, &msg))
			return refuse(why, &msg);
		in->fd = STDIN_FILENO;
		return 0;
	}
	/* The type first, so that a device is never opened; then again on the descriptor,
	 * which is what is read (the name may have changed in between). O_NONBLOCK: opening
	 * a FIFO without a writer returns at once instead of waiting for one. */
	if (stat(path, &st) || check_stat(in, &st, &msg)) {
		if (!msg.len) {
			strbuf_addf(&msg, "cannot read %s '%s': %s", kind->what, path,
				    strerror(errno));
			if (kind->hint && errno == ENOENT)
				strbuf_addf(&msg, "; %s", kind->hint);
		}
		return refuse(why, &msg);
	}
	in->fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
				(in->is_dir ? O_DIRECTORY : 0));
	if (in->fd < 0) {
		strbuf_addf(&msg, "cannot read %s '%s': %s", kind->what, path, strerror(errno));
		return refuse(why, &msg);
	}
	in->is_dir = false;
	if (fstat(in->fd, &st) || check_stat(in, &st, &msg)) {
		if (!msg.len)
			strbuf_addf(&msg, "cannot read %s '%s': %s", kind->what, path,
				    strerror(errno));
		input_close(in);
		return refuse(why, &msg);
	}
	if (!in->is_dir) {
		int flags = fcntl(in->fd, F_GETFL);
		if (flags >= 0)
			fcntl(in->fd, F_SETFL, flags & ~O_NONBLOCK);
	}
	return 0;
}

int input_open(struct input *in, const char *path, const struct input_kind *kind)
{
	return input_open_why(in, path, kind, NULL);
}

void input_close(struct input *in)
{
	if (in->fd >= 0 && !in->is_stdin)
		close(in->fd);
	in->fd = -1;
}

/* Waits until fd (standard input set non-blocking by someone else) can be read. */
static void wait_readable(int fd)
{
	struct pollfd p = {fd, POLLIN, 0};
	poll(&p, 1, -1);
}

static int read_all(struct input *in, struct strbuf *sb, struct strbuf *why)
{
	uint64_t got = 0, max = in->kind->max_bytes;
	struct strbuf msg = STRBUF_INIT;

	if (in->is_dir) {
		strbuf_addf(&msg, "%s '%s' is a directory, not a file", in->kind->what, in->path);
		return refuse(why, &msg);
	}
	for (;;) {
		ssize_t n;
		size_t want = CHUNK_BYTES;
		if (in->size >= 0) {
			/* A regular file: its size (+1 to see the end), but /proc files say 0. */
			uint64_t left = (uint64_t)in->size > got ? (uint64_t)in->size - got : 0;
			want = left + 1 < MIN_CHUNK_BYTES ? MIN_CHUNK_BYTES
			       : left + 1 < CHUNK_BYTES	  ? (size_t)left + 1
							  : CHUNK_BYTES;
		}
		if (interrupt_requested()) {
			strbuf_addf(&msg, "interrupted while reading %s '%s'", in->kind->what,
				    in->path);
			refuse(why, &msg);
			return RP_EINTERRUPT;
		}
		/* One byte more than the cap allows tells that there is more. */
		if (max - got < want)
			want = (size_t)(max - got) + 1;
		strbuf_grow(sb, want);
		n = read(in->fd, sb->buf + sb->len, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				wait_readable(in->fd);
				continue;
			}
			sb->buf[sb->len] = '\0';
			strbuf_addf(&msg, "cannot read %s ", in->kind->what);
			add_name(&msg, in);
			strbuf_addf(&msg, ": %s", strerror(errno));
			return refuse(why, &msg);
		}
		if (n == 0)
			break;
		sb->len += (size_t)n;
		got += (uint64_t)n;
		if (got > max) {
			sb->buf[sb->len] = '\0';
			add_too_large(&msg, in);
			return refuse(why, &msg);
		}
	}
	sb->buf[sb->len] = '\0';
	return 0;
}

int input_read_all(struct input *in, struct strbuf *sb)
{
	return read_all(in, sb, NULL);
}

int input_read_why(struct strbuf *sb, const char *path, const struct input_kind *kind,
		   struct strbuf *why)
{
	struct input in;
	int ret = input_open_why(&in, path, kind, why);
	if (!ret)
		ret = read_all(&in, sb, why);
	input_close(&in);
	return ret;
}

int input_read(struct strbuf *sb, const char *path, const struct input_kind *kind)
{
	return input_read_why(sb, path, kind, NULL);
}

bool input_next_line(const char *text, size_t len, size_t *pos, const char **line,
		     size_t *line_len)
{
	const char *nl;
	if (*pos >= len)
		return false;
	*line = text + *pos;
	nl = memchr(*line, '\n', len - *pos);
	*line_len = nl ? (size_t)(nl - *line) : len - *pos;
	*pos += *line_len + (nl ? 1 : 0);
	if (*line_len && (*line)[*line_len - 1] == '\r')
		(*line_len)--;
	return true;
}
