#ifndef REVPERF_PROFILE_PROFILE_LOAD_H
#define REVPERF_PROFILE_PROFILE_LOAD_H

/*
 * One front door for calling context trees on disk, whatever wrote them:
 * - revperf's CCT runtime (docs/cct-format.md): one file, or a directory holding the
 *   files of one run (a process and the children it forked or exec'ed, `*.cct`);
 * - valgrind callgrind output (docs/callgrind.md);
 * - folded stacks ("a;b;c 123", docs/cct-diff.md);
 * - sampled profiles of `revperf profile --sample` and `profile = sample`
 *   (docs/sampling.md);
 * - the text `perf script` prints for a recording with call chains (docs/perf-script.md).
 * The format is recognised from the content (the first lines), unless forced.
 */
#include <stdbool.h>

#include "profile/cct.h"
#include "profile/perf_script.h"

struct strbuf;
struct symbolizer;

enum profile_format {
	PROFILE_FORMAT_AUTO = 0,
	PROFILE_FORMAT_CCT,	  /* revperf's runtime */
	PROFILE_FORMAT_CALLGRIND, /* valgrind --tool=callgrind */
	PROFILE_FORMAT_FOLDED,	  /* folded stacks */
	PROFILE_FORMAT_SAMPLE,	  /* revperf's sampled profiles (profile/sample_file.h) */
	PROFILE_FORMAT_PERF,	  /* perf script */
};

/* "cct", "callgrind", "folded", "sample", "perf" (and "auto") to a format. Returns 0 or
 * -1. */
int profile_format_parse(const char *s, enum profile_format *out);
const char *profile_format_name(enum profile_format f);

/* One thread of a CCT run (profile_load_options.threads): its time in instrumented code. */
struct profile_thread {
	int pid, tid;
	double ns; /* its root's inclusive time: elapsed in its instrumented top frames (the
		      clock's; 0 for calls-only profiles) */
};

struct profile_threads {
	struct profile_thread *t; /* per profile in name order, its main thread first, then
				     by tid */
	size_t nr, alloc;
};

/* Frees what t owns and zeroes it; accepts a zeroed struct. */
void profile_threads_release(struct profile_threads *t);

struct profile_load_options {
	enum profile_format format; /* AUTO: recognise it */
	const char *event;	    /* callgrind, perf: the event to read (NULL: the first) */
	bool separate_threads;	    /* CCT, sample: each thread under "[thread K...]"; perf:
				       each thread name under "[thread NAME]" (default:
				       merged) */
	bool plain;		    /* merge call sites into plain contexts (cct_plain()) */
	bool weight_calls;	    /* weigh nodes by their calls instead of time/cost: the
				       exclusive weight of a node becomes its call count */
	struct symbolizer *sym;	    /* CCT: names functions; NULL = a symbolizer of its own */
	struct profile_threads *threads; /* CCT: when set, each thread's total is appended
					    (the caller releases it) */
};

/* What was read, for the report. */
struct profile_source {
	enum profile_format format;
	unsigned nr_files;  /* CCT: process profiles read (a directory may hold several) */
	unsigned nr_skipped; /* CCT: incomplete files (*.tmp) of processes that were killed */
	bool calls_only;    /* CCT: written with REVPERF_CCT_CLOCK=none, weights are calls */
	const char *clock;  /* CCT: the first profile's clock, "tsc", "monotonic" or "none"
			       (static); NULL for other formats */
	char exe[4096];	    /* CCT: the program of the process with the largest tree; sample:
			       with the most samples ("" when unknown) */
	struct perf_script_info perf; /* perf: the event, samples, threads, kinds of frames */
};

/*
 * Reads `path` (a file, or for CCT profiles a directory of one run's files) into `out`
 * (uninitialised or released; the caller releases it with cct_release()), inclusive
 * weights computed. `src` (may be NULL) says what was read. Returns 0, or RP_EINPUT after
 * one error() naming the file (and line) and what is wrong: missing, unreadable, not a
 * profile, corrupt, truncated, or a directory without any complete profile. `out` then
 * holds only the root.
 */
int profile_load(const char *path, const struct profile_load_options *o, struct cct *out,
		 struct profile_source *src);

#endif
