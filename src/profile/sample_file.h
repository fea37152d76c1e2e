#ifndef REVPERF_PROFILE_SAMPLE_FILE_H
#define REVPERF_PROFILE_SAMPLE_FILE_H

/*
 * A sampled profile (docs/sampling.md): what `revperf profile --sample` and `profile =
 * sample` keep of a run, already unwound and named, so that it reads without the
 * program's files. A text file:
 *
 *   revperf-sample 1
 *   command ./prog 100
 *   exe /w/prog
 *   event cpu-clock
 *   unit ns
 *   frequency 1000
 *   period 1000000
 *   callgraph fp 41 of the 45 functions of /w/prog keep frame pointers
 *   run 1021000000 998000000 12000000
 *   samples 998
 *   lost 0
 *   throttled 0
 *   truncated 0
 *   spliced 0
 *   complete 990
 *   module fp 2894 /w/prog
 *   thread 0 4242 4242 998 998000000 prog
 *   s 0 812 812000000 _start;__libc_start_main;main;work
 *   end
 *
 * `exe` is the program of the process with the most samples (empty when unknown); `run`
 * is the run's wall, user and system time in ns as the kernel counted them (for the
 * check of the sampled total); `module` says how frames in each module were unwound (fp:
 * the kernel's frame-pointer chain; cfi: DWARF call frame information; nocfi: frame
 * pointers followed by libdwfl for lack of it); `thread K PID TID SAMPLES WEIGHT COMM`,
 * numbered in the order the threads started; `s K SAMPLES WEIGHT STACK`: the samples whose
 * stack (outermost frame first, ';' between frames) was STACK in thread K, and their
 * weight in `unit` (ns of CPU time for cpu-clock). Sampled profiles have no call counts.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/cct.h"

#define SAMPLE_FILE_MAGIC "revperf-sample 1"

struct sample_thread {
	unsigned pid, tid;
	char *comm;
	uint64_t samples;
	double weight; /* in the profile's unit */
};

struct sample_module {
	char *path;
	char *unwind; /* "fp", "cfi" or "nocfi" */
	uint64_t frames;
};

struct sample_stack {
	uint32_t thread;
	uint64_t samples;
	double weight;
	char *frames; /* outermost first, ';' between */
};

struct sample_profile {
	char *command;
	char *exe;	 /* "" when unknown */
	char *event;	 /* "cpu-clock", "cycles" */
	char *unit;	 /* "ns", "cycles" */
	char *callgraph; /* "fp" or "dwarf" */
	char *callgraph_why;
	unsigned frequency_hz;
	uint64_t period; /* in unit; 0 when the kernel varies it (cycles) */
	uint64_t wall_ns, user_ns, sys_ns;
	uint64_t samples, lost, throttled;
	uint64_t truncated; /* DWARF: stacks deeper than the copy */
	uint64_t spliced;   /* DWARF: stacks continued with the frame-pointer chain */
	uint64_t complete;  /* stacks whose outermost frame is a program or thread entry */
	struct sample_thread *threads;
	size_t nr_threads, alloc_threads;
	struct sample_module *modules;
	size_t nr_modules, alloc_modules;
	struct sample_stack *stacks;
	size_t nr_stacks, alloc_stacks;
};

/* Frees everything p owns and zeroes it; accepts a zeroed struct. */
void sample_profile_release(struct sample_profile *p);

/* Appends p to sb in the format above. */
struct strbuf;
void sample_profile_write(const struct sample_profile *p, struct strbuf *sb);

/* sample_profile_write() into the new file `path` (never through a link). Returns 0, or
 * RP_EINTERNAL after error(). */
int sample_profile_save(const struct sample_profile *p, const char *path);

/*
 * Parses a sampled profile from `text` (len bytes) into `out` (zeroed by the caller),
 * `origin` naming the input in messages. Everything is checked: the first line, each
 * record's fields and numbers, threads numbered 0, 1, ... before the stacks that name them,
 * non-empty frames, and the final `end` (a file without it is truncated). Returns 0, or
 * RP_EINPUT after one error() "origin:LINE: what" (out is then released).
 */
int sample_profile_parse(const char *text, size_t len, const char *origin,
			 struct sample_profile *out);

/* sample_profile_parse() of the file `path` (at most the profile cap, util/input.h). */
int sample_profile_read(const char *path, struct sample_profile *out);

/* Whether text begins like a sampled profile. */
bool sample_profile_sniff(const char *text, size_t len);

/*
 * Appends what a reader must know before trusting p, one sentence per line, each ending
 * in '\n': few samples (with the uncertainty that follows), samples lost, throttling,
 * stacks cut at the end of the stack copy, stacks that do not reach an entry point.
 * Appends nothing for a profile without such a problem.
 */
void sample_profile_notes(const struct sample_profile *p, struct strbuf *sb);

/* "one sample per 1.000 ms of CPU time in user space" (or per second of the event). */
void sample_profile_period_text(const struct sample_profile *p, struct strbuf *sb);

/*
 * The calling context tree of p into `out` (uninitialised or released), weighing on-CPU
 * ns (CCT_WEIGHT_CPU_NS; for another event, CCT_WEIGHT_EVENT named after it) with
 * calls_known false: each stack's weight is the exclusive weight of its last frame, calls
 * stay 0 (sampling counts no calls) and every call-site rank is 0 (which call sites a run's samples hit is chance: ranks
 * would not compare between runs); a node's children are in the order of their names (the
 * order in which samples first hit them is chance). With separate_threads, each thread's stacks
 * hang under a node "[thread K COMM]". Returns 0, or RP_EINPUT after error() when the tree would be
 * too large. The caller releases out with cct_release().
 */
int sample_profile_cct(const struct sample_profile *p, bool separate_threads, struct cct *out);

#endif
