#ifndef REVPERF_PROFILE_CCT_FILE_H
#define REVPERF_PROFILE_CCT_FILE_H

/*
 * The profiles written by the CCT runtime (librevperf_cct.so, docs/cct-format.md,
 * runtime/cct/revperf_cct_format.h): one file per process image, one call-site-aware tree
 * per thread with raw run-time addresses. cct_file_parse() reads and validates one file
 * into a struct cct_profile; cct_profile_to_cct() symbolizes one or more of them (a
 * process and its forked or exec'ed children) into one struct cct (profile/cct.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "binary/symbolize.h"
#include "profile/cct.h"

/* Largest profile parsed, in bytes: the profile cap of util/input.h. */
#define CCT_FILE_MAX_BYTES ((size_t)1 << 31)
/* Largest thread tree and deepest stack the runtime writes (its MAX_NODES, MAX_DEPTH). */
#define CCT_FILE_MAX_THREAD_NODES (1u << 26)
#define CCT_FILE_MAX_DEPTH (1u << 22)

/* One node of a thread's tree, as written: node 0 is the thread's root (fn = site = 0). */
struct cct_file_node {
	uint32_t parent;  /* < the node's own id (0 for the root) */
	uint64_t fn;	  /* run-time address of the function */
	uint64_t site;	  /* run-time return address in the caller (the call site) */
	uint64_t calls;	  /* 0 for the root and for frames open at fork */
	uint64_t incl_ns; /* >= excl_ns; 0 with CCT_CLOCK_NONE */
	uint64_t excl_ns;
};

struct cct_file_thread {
	int tid;
	bool truncated;		     /* node pool full or depth limit hit: the tree is incomplete */
	uint64_t lost_calls;	     /* calls beyond the depth limit, not in the tree */
	uint32_t max_depth;	     /* deepest stack seen, in frames */
	struct cct_file_node *nodes; /* nodes[id], id 0 .. nr_nodes - 1 */
	size_t nr_nodes;
};

enum cct_file_clock {
	CCT_CLOCK_TSC,	     /* the invariant TSC, converted to ns by the runtime */
	CCT_CLOCK_MONOTONIC, /* clock_gettime(CLOCK_MONOTONIC) */
	CCT_CLOCK_NONE,	     /* calls only (REVPERF_CCT_CLOCK=none): every time is 0 */
};

/* One process image's profile. */
struct cct_profile {
	char *origin; /* the file name (or the parse origin), for messages */
	int pid, ppid;
	char *exe; /* readlink of /proc/self/exe; NULL when the runtime could not read it */
	enum cct_file_clock clock;
	char *reason;			 /* why the file was written: "exit", "exec" or "signal" */
	int signal;			 /* the signal number when reason is "signal", else 0 */
	struct proc_maps maps;		 /* /proc/self/maps when the file was written */
	struct cct_file_thread *threads; /* in file order */
	size_t nr_threads, alloc_threads;
};

/*
 * Parses one profile from `text` (len bytes, need not be NUL-terminated) into `out`
 * (uninitialised or released), `origin` naming the input in messages. Everything is
 * checked: the first line ("revperf-cct 1"), the order of the records (pid, ppid, exe
 * (optional), clock, reason, map..., then per thread its `thread` line and exactly NODES
 * `n` lines with ids 0, 1, ... and parent < id, then `end`), field counts and types,
 * numbers that overflow, INCL_NS >= EXCL_NS, unknown tags, and the final `end` (a file
 * without it is a "truncated profile"). Returns 0, or RP_EINPUT after one error()
 * "origin:LINE: what" (`out` is then released and zeroed). The caller releases a parsed
 * profile with cct_profile_release().
 */
int cct_file_parse(const char *text, size_t len, const char *origin, struct cct_profile *out);

/*
 * cct_file_parse() on the contents of `path`: a regular file, or standard input as "-", at
 * most the profile cap (util/input.h, docs/limits.md).
 */
int cct_file_read(const char *path, struct cct_profile *out);

/* True when `text` starts like a CCT profile ("revperf-cct " on the first line). */
bool cct_file_sniff(const char *text, size_t len);

/* Frees everything the profile owns and zeroes it; accepts a zeroed or released profile. */
void cct_profile_release(struct cct_profile *p);

/*
 * Converts `nr` (>= 1) process profiles of one run (e.g. a process and the children it
 * forked) into one calling context tree `out` (uninitialised or released; the caller
 * releases it with cct_release()). Profiles are only read.
 *
 * - Functions are named by `sym` (may be NULL: then nothing is opened and every frame is
 *   named by address): the demangled symbol, "symbol+0xOFF" when the address is not a
 *   symbol's start, "libfoo.so+0xVADDR" (module base name, ELF virtual address) when no
 *   symbol covers it or the module cannot be read (or, with sym NULL, the file offset),
 *   "0xADDR" outside any file (JIT code). A mapping whose file was deleted or replaced
 *   since the run (inode differs) is warned about once; a deleted one is not symbolized.
 * - Call sites become ranks: among the children of one parent that have the same function
 *   name, the distinct call sites (module, ELF virtual address of the return address)
 *   are ranked in address order, 0 first, over all threads and profiles given, so that
 *   a calling b from two places gives b (rank 0) and b#1 in every build and run.
 * - Threads: with merge_threads, every thread's top frames become children of the root,
 *   so that the same context in distinct threads (and processes) is one node; without
 *   it, each thread's tree hangs under a node "[thread K]" (K = 0, 1, ... over the
 *   profiles in the order given; in each, the main thread (tid == pid) first, then by
 *   tid).
 * - Metrics: calls, incl and excl in ns, as written (not recomputed); nodes of different
 *   threads and profiles with the same context add up. The root (and a "[thread K]" node)
 *   has 0 calls, 0 exclusive time and the sum of the threads' root times as inclusive.
 * - Calls-only profiles (clock CCT_CLOCK_NONE, no times): when every profile given is one,
 *   the tree is weighted by calls instead: each node's exclusive weight is its calls and
 *   its inclusive weight the calls of its whole subtree (cct_compute_inclusive()), the
 *   root's the total number of calls. Profiles with and without times cannot be mixed in
 *   one conversion (RP_EINPUT).
 *   Children are in order of first call (profiles in the order given, then threads as
 *   above, then node ids, which the runtime assigns at first call).
 * - A truncated thread is warned about (its tree is incomplete).
 *
 * Returns 0, or RP_EINPUT after error() when nr is 0, calls-only and timed profiles are
 * mixed, or the tree passes CCT_MAX_NODES (`out` then holds only the root).
 */
int cct_profile_to_cct(const struct cct_profile *const *profiles, size_t nr, struct symbolizer *sym,
		       bool merge_threads, struct cct *out);

#endif
