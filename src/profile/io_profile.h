#ifndef REVPERF_PROFILE_IO_PROFILE_H
#define REVPERF_PROFILE_IO_PROFILE_H

/*
 * I/O profiles (docs/io-profile.md): one traced run of a program (collect/iotrace.h) with
 * every stack symbolized, kept as a versioned JSON file ("format": "revperf-io",
 * "version": 1) that `revperf profile --io`, `revperf compare` (profile = io) and
 * `revperf diff` read and write. The bridge to the spectrum analysis is
 * analysis/io_spectra.h.
 *
 * Not thread-safe on a shared object; no global state.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/iotrace.h"

#define IO_PROFILE_FORMAT "revperf-io"
#define IO_PROFILE_VERSION 1

/* One frame of a stack: where the program was, named after the run. */
struct io_frame {
	char *module;	/* the ELF file ("/usr/bin/kvstore"), "[vdso]" or "[unknown]" */
	uint64_t addr;	/* ELF virtual address in `module` (a call site: return address - 1) */
	char *function; /* NULL when no symbol covers the address */
	char *source;	/* "kvstore.c:292", NULL without DWARF line information */
	bool inlined;	/* an inlined function: the next frame has the same address */
};

/* Frames per stack a profile may hold (inlined functions add frames to IOTRACE_MAX_DEPTH). */
#define IO_PROFILE_MAX_FRAMES 65536

/* The calls of one (direction, system call, stack, file), as in struct iotrace_entry. */
struct io_entry {
	enum iotrace_dir dir;
	char *syscall;
	char *file;
	struct io_frame *frames; /* innermost first */
	size_t nr_frames;
	bool truncated;
	uint64_t calls, bytes, errors, unfinished;
	int last_errno;
};

struct io_process {
	int64_t pid, ppid;
	char *exe; /* NULL when unknown */
	unsigned execs;
	bool exited;
	int wstatus; /* valid when exited */
};

struct io_profile {
	char *command;	    /* as the user gave it (one line) */
	char *cwd;	    /* the program's working directory; file names under it are relative
			       in spectra runs (analysis/io_spectra.h) */
	char *log;	    /* the file that holds the program's output; NULL when not kept */
	int64_t started_at; /* Unix time in seconds */
	enum run_status status;
	int exit_code, signal;
	char *detail; /* the reason for anything but RUN_OK; NULL for RUN_OK */
	bool stragglers_killed;
	uint64_t wall_ns;
	bool reads; /* the read family was traced too */
	uint64_t traced_calls;
	struct io_entry *entries; /* bytes, then calls, descending */
	size_t nr_entries;
	struct io_process *procs; /* procs[0] is the program */
	size_t nr_procs;
};

/* What the caller knows of the run beyond the tracer's result. */
struct io_profile_meta {
	const char *command, *cwd, *log; /* cwd NULL: the current directory; log may be NULL */
	int64_t started_at;
	bool reads;
};

/*
 * Makes a profile of a tracer result: copies everything and names every frame with
 * binary/symbolize.h (one symbolizer for the whole result; modules that cannot be read
 * are warned about once and their frames stay unnamed). `out` is overwritten; release it
 * with io_profile_release(). Returns RP_OK (no failure but allocation, which aborts).
 */
int io_profile_from_trace(const struct iotrace_result *tr, const struct io_profile_meta *meta,
			  struct io_profile *out);

/* Frees what the profile owns and zeroes it; accepts a zeroed or released profile. */
void io_profile_release(struct io_profile *p);

/*
 * Writes the profile to `path` (through a temporary file renamed into place, so a reader
 * never sees half a file). Returns RP_OK, or RP_EINTERNAL after error() when it cannot be
 * written.
 */
int io_profile_write(const struct io_profile *p, const char *path);

/* The JSON document of the profile (a new reference). */
struct json_t;
struct json_t *io_profile_to_json(const struct io_profile *p);

/*
 * Reads a profile written by io_profile_write() into `out` (released by the caller with
 * io_profile_release(), also after a failure): a regular file, or standard input as "-",
 * at most the I/O profile cap (util/input.h). Returns RP_OK, or RP_EINPUT after one error()
 * line naming the file and what is wrong (not JSON: with its line and column; another
 * format or a later version; a missing or mistyped field, named by its JSON path such as
 * "entries[3].frames[0].addr").
 */
int io_profile_read(const char *path, struct io_profile *out);
/* The same for a document already in memory; `name` names it in messages. */
int io_profile_parse(const char *name, const char *text, size_t len, struct io_profile *out);

/* True when the start of the file looks like an I/O profile (a JSON object naming the format). */
bool io_profile_sniff(const char *head, size_t len);

/*
 * The name of one frame as stack keys use it: the function, else "module+0xaddr" with the
 * module's base name. Appended to `sb`.
 */
struct strbuf;
void io_frame_name(const struct io_frame *f, struct strbuf *sb);

/*
 * The stack key of an entry: its frame names, outermost first, joined by ';' (the folded
 * stack convention the spectrum analysis uses); "[no stack]" when the stack could not be
 * read. Appended to `sb`.
 */
void io_entry_stack_key(const struct io_entry *e, struct strbuf *sb);

/*
 * The file key of an entry: pipes and sockets lose their inode numbers ("pipe:[123]" is
 * "[pipe]", "socket:[9]" is "[socket]", anon_inode:[eventfd] is "[eventfd]"), since those
 * differ in every run; a path under the profile's cwd becomes "./rel/path", so that runs in
 * two working trees (two revisions) name the same file alike. Appended to `sb`.
 */
void io_entry_file_key(const struct io_profile *p, const struct io_entry *e, struct strbuf *sb);

/*
 * Where the program itself asked for the I/O, e.g. the function that called fprintf():
 * the innermost frame with a source line (DWARF) outside the system libraries (modules
 * under /lib, /usr/lib, /lib64, /usr/lib64, /usr/local/lib, and [vdso]), else the
 * innermost frame outside them (the C library inside a static binary has no source lines
 * on Debian, the program built with -g has). NULL when every frame is in system
 * libraries or the stack is empty.
 */
const struct io_frame *io_entry_origin(const struct io_entry *e);

/*
 * Adds the name of every frame of the entries of the n profiles p[0..n) (io_frame_name())
 * to `kinds`, with value 1
 * for a frame of the program under test and 0 for one of a system library (as
 * io_entry_origin() tells them apart: modules under the system library directories; and,
 * in an entry where the program has source lines (built with -g), frames without one, such
 * as the C library linked into a static binary and the start-up code). A name seen as both
 * is the program's. The reports shorten stack keys around the program's frames with it
 * (report/io_report.h). `kinds` is the caller's (strmap_release()).
 */
struct strmap;
void io_profiles_frame_kinds(const struct io_profile *p, size_t n, struct strmap *kinds);

/*
 * Whether `path` holds I/O profiles: a file that io_profile_sniff() recognises, or a
 * directory with at least one "*.io.json" file. False when it cannot be read, and for "-"
 * (standard input is read once, by the reader). Never blocks (a FIFO is not read).
 */
bool io_profile_path_is_io(const char *path);

/*
 * Reads the runs of one side: `path` is one profile, or a directory whose "*.io.json" files
 * (sorted by name, numbers in names compared as numbers) are one run each. *out (freed by
 * the caller with io_profiles_free(*out, *nr), also after a failure) gets them. Returns
 * RP_OK, or RP_EINPUT after error() (an unreadable or corrupt profile, a directory with
 * none).
 */
int io_profile_load_runs(const char *path, struct io_profile **out, size_t *nr);
void io_profiles_free(struct io_profile *p, size_t nr);

/* Name of a run status as profiles write it ("ok", "failed", ...) and back (-1 if unknown). */
int io_profile_status_parse(const char *s);

#endif
