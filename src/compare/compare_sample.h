#ifndef REVPERF_COMPARE_COMPARE_SAMPLE_H
#define REVPERF_COMPARE_COMPARE_SAMPLE_H

/*
 * profile = sample (docs/sampling.md): after the timing runs, bench->profile_runs runs per
 * side of the timing builds themselves (never a rebuilt program), alternated A/B, each
 * sampled with perf_event_open and kept as a sampled profile per run (stored like the cct
 * profiles, kind "sample"); the calling context trees of on-CPU time merged per side and
 * differenced under the verdict as compare_profile.h does.
 */
#include "compare/compare_profile.h"

/*
 * Fills a new *out (free with cct_attribution_free()). Sampling refused here (a seccomp
 * filter, perf_event_paranoid) is out->error, printed once, and the verdict stands.
 * Returns 0, RP_EINTERRUPT when the user interrupted, RP_EINTERNAL on a store failure.
 */
int compare_profile_sample(const struct compare_request *req, const struct bench_config *bench,
			   int64_t benchmark_id, int64_t machine_id, int64_t comparison_id,
			   struct cct_attribution **out);

#endif
