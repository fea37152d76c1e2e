#ifndef REVPERF_COLLECT_IOTRACE_H
#define REVPERF_COLLECT_IOTRACE_H

/*
 * The I/O tracer (METHODS.md section 3, docs/io-tracing.md): runs a program and attributes
 * every write-family system call of its whole process tree (threads, fork, vfork, clone,
 * exec) to the user-space stack that issued it and the file it wrote to, without root:
 * ptrace plus a seccomp filter that stops the tracee only for those calls, and a DWARF CFI
 * unwinder (elfutils libdwfl) that needs no frame pointers. glibc's internal writes (stdio),
 * statically linked programs and programs not written in C are seen like any other,
 * because the kernel is asked, not the C library.
 *
 * Stacks are recorded as (ELF file, ELF virtual address) pairs, to be named after the run
 * (binary/symbolize.h: symbolizer_lookup(sym, frame.module, frame.file_vaddr, &loc)).
 *
 * x86-64 only (other architectures: iotrace_run() fails with an error). Calls made through
 * the 32-bit (int 0x80) or x32 system call ABIs, io_uring, splice, copy_file_range,
 * sendmmsg and mmap'ed files are not seen.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collect/proc.h"

/* Frames kept per stack. */
#define IOTRACE_DEFAULT_DEPTH 64
#define IOTRACE_MAX_DEPTH 512

struct iotrace_options {
	bool reads;	    /* also trace the read family: read, pread64, readv, preadv,
			       preadv2, recvfrom, recvmsg */
	unsigned max_depth; /* frames kept per stack, innermost first; 0 = IOTRACE_DEFAULT_DEPTH,
			       at most IOTRACE_MAX_DEPTH */
	double timeout_s;   /* 0 = none; then the whole tree is killed with SIGKILL */
	const char *cwd;    /* working directory of the program; NULL = the current one */
	int stdin_fd;	    /* the program's stdin; -1 = inherited */
	int out_fd;	    /* the program's stdout and stderr; -1 = inherited */
	bool discard_stdout; /* the program's stdout to /dev/null instead (output = discard) */
	bool verify_unwind; /* for tests: unwind every stack both ways and count differences
			       (iotrace_result.unwind_mismatches); about twice the cost */
};

/* Sets the defaults: writes only, IOTRACE_DEFAULT_DEPTH, no timeout, inherited stdio. */
void iotrace_options_init(struct iotrace_options *opts);

/* One frame: where, in which ELF file. */
struct iotrace_frame {
	const char *module;  /* the mapped file's path as the kernel names it
				("/usr/lib/x86_64-linux-gnu/libc.so.6"), "[vdso]", or
				"[unknown]" when no file covers the address (JIT code) */
	uint64_t file_vaddr; /* ELF virtual address in `module` (run-time address minus the
				load bias); for every frame but the innermost, the address of
				the call instruction (return address - 1). For "[unknown]",
				the run-time address. */
};

enum iotrace_dir { IOTRACE_WRITE, IOTRACE_READ };

/*
 * The calls of one (direction, system call, stack, file). `calls` counts the calls the
 * program made: a call that the kernel restarted after a signal handler counts once; one
 * that was interrupted for good (EINTR, or its process died in it) counts once with 0 bytes.
 */
struct iotrace_entry {
	enum iotrace_dir dir;
	const char *syscall;	      /* "write", "pwrite64", "sendto", ... (static) */
	const char *file;	      /* at the time of the call: "/tmp/out.txt", "pipe:[1234]",
					 "socket:[5678]", "/dev/null", "anon_inode:[eventfd]", or
					 "fd 7 (not open)" */
	struct iotrace_frame *frames; /* innermost first */
	size_t nr_frames;	      /* 0 when the stack could not be read at all */
	bool truncated;		      /* the stack was deeper than max_depth */
	uint64_t calls;
	uint64_t bytes;	     /* sum of the byte counts the successful calls returned */
	uint64_t errors;     /* calls that failed (EAGAIN, EPIPE, EBADF, EINTR, ...) */
	int last_errno;	     /* of the last failed call, 0 if none */
	uint64_t unfinished; /* calls whose process died (or was killed) inside them */
};

/* One process of the traced tree. */
struct iotrace_process {
	pid_t pid;
	pid_t ppid;	/* the traced process that created it; 0 for the program itself */
	char *exe;	/* its executable after its last exec (/proc/PID/exe), NULL if unknown */
	unsigned execs; /* successful execs */
	bool exited;	/* wstatus is valid (false: still running when the tracer gave up) */
	int wstatus;	/* as from waitpid(): WIFEXITED/WEXITSTATUS, WIFSIGNALED/WTERMSIG */
};

struct iotrace_strings; /* interned paths, private */

struct iotrace_result {
	/* The program (the first process): as in proc.h. */
	enum run_status status;
	int exit_code;		/* valid for RUN_OK / RUN_FAILED */
	int signal;		/* valid for RUN_CRASHED / RUN_TIMEOUT / RUN_INTERRUPTED */
	char detail[256];	/* human-readable reason for anything but RUN_OK */
	bool stragglers_killed; /* processes of the tree outlived the program and were killed */
	ns_t wall_ns;		/* from the release of the program to the end of the last process */

	/* Sorted by bytes, then calls, descending. */
	struct iotrace_entry *entries;
	size_t nr_entries;
	struct iotrace_process *procs; /* in order of appearance; procs[0] is the program */
	size_t nr_procs;
	uint64_t traced_calls;	    /* every stop for a traced call (restarts included) */
	uint64_t unwinds_fast;	    /* stacks unwound by the CFA-rule fast path */
	uint64_t unwinds_libdw;	    /* stacks unwound by libdwfl (complex frames) */
	uint64_t unwind_mismatches; /* with verify_unwind: the two disagreed (a bug) */

	struct iotrace_strings *strings;
};

/*
 * Runs argv (argv[0] searched in PATH) under the tracer and fills *out (initialised here;
 * release with iotrace_result_release() whatever the return value). Blocks until every
 * process of the tree has exited: when the program (the first process) exits, the rest of
 * the tree is killed with SIGKILL (out->stragglers_killed); on timeout, or when
 * interrupt_requested() becomes true (collect/proc.h), the whole tree is killed with
 * SIGKILL. A program that cannot be executed is RUN_NOT_STARTED with the reason in
 * out->detail ("cannot execute 'x': No such file or directory"), not an error.
 * Returns 0 when the program ran (whatever its status), RP_EINPUT for bad options or an
 * empty argv, RP_EINTERNAL when tracing cannot work here (no ptrace or seccomp, another
 * architecture, fork failure), each after error().
 *
 * The caller becomes the tracer (ptrace) of the tree and its parent. While it runs it
 * waits for any child (waitpid(-1)): the calling process must not have other children
 * that exit meanwhile (they would be reaped here); SIGCHLD must not be SIG_IGN. Tracees
 * get SIGKILL if the calling thread dies (PTRACE_O_EXITKILL). Job-control stops (SIGTSTP,
 * SIGSTOP) of tracees are not kept: the tracee continues. Not thread-safe: one run per
 * process at a time.
 */
int iotrace_run(char *const argv[], const struct iotrace_options *opts, struct iotrace_result *out);

/* Frees everything *res holds and zeroes it; accepts a zeroed or released result. */
void iotrace_result_release(struct iotrace_result *res);

/* Total bytes over the entries of one direction. */
uint64_t iotrace_total_bytes(const struct iotrace_result *res, enum iotrace_dir dir);

#endif
