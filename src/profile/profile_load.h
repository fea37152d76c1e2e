#ifndef REVPERF_PROFILE_PROFILE_LOAD_H
#define REVPERF_PROFILE_PROFILE_LOAD_H

/*
 * One front door for calling context trees on disk, whatever wrote them:
 * - revperf's CCT runtime (docs/cct-format.md): one file, or a directory holding the
 *   files of one run (a process and the children it forked or exec'ed, `*.cct`);
 * - valgrind callgrind output (docs/callgrind.md);
 * - folded stacks ("a;b;c 123", docs/cct-diff.md);
 * - sampled profiles of `revperf profile --sample` and `profile = sample`
 *   (docs/sampling.md).
 * The format is recognised from the content (the first line), unless forced.
 */
#include <stdbool.h>

#include "profile/cct.h"

struct strbuf;
struct symbolizer;

enum profile_format {
	PROFILE_FORMAT_AUTO = 0,
	PROFILE_FORMAT_CCT,	  /* revperf's runtime */
	PROFILE_FORMAT_CALLGRIND, /* valgrind --tool=callgrind */
	PROFILE_FORMAT_FOLDED,	  /* folded stacks */
	PROFILE_FORMAT_SAMPLE,	  /* revperf's sampled profiles (profile/sample_file.h) */
};

/* "cct", "callgrind", "folded", "sample" (and "auto") to a format. Returns 0 or -1. */
int profile_format_parse(const char *s, enum profile_format *out);
const char *profile_format_name(enum profile_format f);

struct profile_load_options {
	enum profile_format format; /* AUTO: recognise it */
	const char *event;	    /* callgrind: the event to read (NULL: the first, Ir) */
	bool separate_threads;	    /* CCT, sample: each thread under "[thread K...]" (default:
				       merged) */
	bool plain;		    /* merge call sites into plain contexts (cct_plain()) */
	bool weight_calls;	    /* weigh nodes by their calls instead of time/cost: the
				       exclusive weight of a node becomes its call count */
	struct symbolizer *sym;	    /* CCT: names functions; NULL = a symbolizer of its own */
};

/* What was read, for the report. */
struct profile_source {
	enum profile_format format;
	unsigned nr_files;  /* CCT: process profiles read (a directory may hold several) */
	unsigned nr_skipped; /* CCT: incomplete files (*.tmp) of processes that were killed */
	bool calls_only;    /* CCT: written with REVPERF_CCT_CLOCK=none, weights are calls */
	bool no_calls;	    /* sample: the tree counts no calls (every node's calls is 0) */
	char exe[4096];	    /* CCT: the program of the process with the largest tree; sample:
			       with the most samples ("" when unknown) */
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
