#ifndef REVPERF_UTIL_INPUT_H
#define REVPERF_UTIL_INPUT_H

/*
 * The one front door for files revperf reads by name (docs/limits.md). An input is a
 * regular file, a directory where the kind allows one, or standard input given as "-"
 * where the kind allows it; a FIFO, a device or a socket is refused with one line naming
 * the path and what to do, without ever blocking: the file is opened with O_NONBLOCK and
 * its type checked on the open descriptor. Every read is capped by the size limit of the
 * kind of input, and stops at an interrupt (SIGINT, SIGTERM: util/interrupt.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

enum {
	INPUT_STDIN_OK = 1 << 0, /* "-" is standard input */
	INPUT_DIR_OK = 1 << 1,	 /* a directory is opened (the caller lists it) */
};

/* A kind of input: what it is called in messages and how large it may be. */
struct input_kind {
	const char *what;   /* "configuration", "profile": the noun of messages */
	uint64_t max_bytes; /* the cap */
	unsigned flags;	    /* INPUT_STDIN_OK, INPUT_DIR_OK */
	const char *hint;   /* what to do when it is missing or a directory (may be NULL) */
};

/* The kinds, each with its cap; docs/limits.md lists the same table. */
extern const struct input_kind input_config;	  /* revperf.ini: 1 MiB */
extern const struct input_kind input_profile;	  /* CCT file, callgrind, folded: 2 GiB */
extern const struct input_kind input_profile_dir; /* the same, or a directory of .cct */
extern const struct input_kind input_io_profile;  /* I/O profile JSON (or a directory) */
extern const struct input_kind input_results;	  /* hyperfine / Google Benchmark JSON */
extern const struct input_kind input_counters;	  /* counter series CSV */
extern const struct input_kind input_binary;	  /* ELF file (bindiff, symbols): 4 GiB */
extern const struct input_kind input_state;	  /* revperf's own files: caches, maps */
extern const struct input_kind input_log;	  /* a log whose tail is shown */
extern const struct input_kind input_run_log;	  /* a run's log: any size, read in windows */
extern const struct input_kind input_test_list;	  /* the output of a suite's `tests` */

/* An opened input. */
struct input {
	int fd;		  /* -1 when not open; 0 for standard input (never closed) */
	bool is_stdin;	  /* "-" */
	bool is_dir;	  /* a directory (fd opened O_DIRECTORY) */
	int64_t size;	  /* a regular file's size in bytes, -1 otherwise */
	const char *path; /* borrowed: as given */
	const struct input_kind *kind;
};

/*
 * Opens path as an input of `kind`. Returns 0, or RP_EINPUT with one line printed by
 * error() naming the path, what is wrong (missing, unreadable, a FIFO, a device, a socket,
 * a directory, larger than the cap) and what to do. input_open_why() writes that line to
 * *why instead (without "revperf: error: "), for callers that go on without the file.
 * The caller closes with input_close().
 */
int input_open(struct input *in, const char *path, const struct input_kind *kind);
int input_open_why(struct input *in, const char *path, const struct input_kind *kind,
		   struct strbuf *why);
/*
 * Appends the rest of an opened input (not a directory) to sb, at most kind->max_bytes.
 * Returns 0, RP_EINPUT after error() (read error, larger than the cap: the message names
 * the file and the cap) or RP_EINTERRUPT after error() when an interrupt arrived.
 */
int input_read_all(struct input *in, struct strbuf *sb);
/* Closes in (not standard input); accepts an input that is not open. */
void input_close(struct input *in);

/*
 * input_open(), input_read_all() and input_close() of a file: the whole input appended to
 * sb. input_read_why() writes the message to *why instead of printing it (a missing cache
 * is no error).
 */
int input_read(struct strbuf *sb, const char *path, const struct input_kind *kind);
int input_read_why(struct strbuf *sb, const char *path, const struct input_kind *kind,
		   struct strbuf *why);

/*
 * The line of text[0, len) that starts at *pos, without its "\n" or "\r\n", and *pos moved
 * past it; false when *pos is at the end. The last line needs no newline.
 */
bool input_next_line(const char *text, size_t len, size_t *pos, const char **line,
		     size_t *line_len);

/* "1 MiB", "2 GiB", "300 bytes": a cap for messages. */
void input_add_size(struct strbuf *sb, uint64_t bytes);

#endif
