#ifndef REVPERF_PROFILE_SAMPLE_BUILD_H
#define REVPERF_PROFILE_SAMPLE_BUILD_H

/*
 * The recorder's raw file (collect/perf_sample.h) -> a sampled profile
 * (profile/sample_file.h): the kernel's records replayed in time order (processes, their
 * exec'd programs and mappings, threads and their names), each sample's stack taken from
 * the frame-pointer chain or unwound from its stack copy (profile/sample_impl.h), named
 * with the symbolizer (inlined functions as frames of their own), and summed per thread
 * and stack.
 */
#include <stdint.h>

#include "profile/sample_file.h"

struct symbolizer;

struct sample_build_options {
	const char *command;	   /* for the profile's header */
	const char *callgraph_why; /* why this call graph (perf_sample_choose()), may be NULL */
	uint64_t wall_ns, user_ns, sys_ns; /* the run as the kernel counted it */
	struct symbolizer *sym;		   /* NULL: one of its own */
};

/*
 * Builds *out (zeroed by the caller; release with sample_profile_release()) from the raw
 * file at raw_path. Returns 0, or RP_EINPUT after error() when the raw file is not
 * readable or corrupt.
 */
int sample_build(const char *raw_path, const struct sample_build_options *o,
		 struct sample_profile *out);

#endif
