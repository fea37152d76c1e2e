#ifndef REVPERF_COMPARE_COMPARE_IO_H
#define REVPERF_COMPARE_COMPARE_IO_H

/*
 * The I/O similarity report under a benchmark's verdict (`profile = io`): extra runs of
 * each side under the I/O tracer (collect/iotrace.h), separate from the timing runs and in
 * the same builds, stored as I/O profiles, and the similarity report of the target's runs
 * against the baseline's (METHODS.md section 3, docs/io-analysis.md).
 */
#include "analysis/spectra.h"
#include "compare/compare.h"
#include "util/strmap.h"

struct io_attribution {
	char *error;	      /* why there is no report (NULL when there is one) */
	size_t runs[2];	      /* traced runs used per side (A, B) */
	size_t reused[2];     /* of which were stored before this comparison */
	size_t failed[2];     /* traced runs that failed, crashed or timed out */
	/* Per side (A, B): bytes and write calls per run, over the runs used. */
	struct io_per_run {
		double mean, min, max;
	} bytes[2], calls[2];
	struct spectra_report report;
	struct strmap frame_kinds; /* which frames are the program's (io_profiles_frame_kinds()) */
	char *dir;	       /* where the profiles and logs of this comparison are */
	const char *labels[2]; /* the sides' labels (borrowed from the request) */
};

/*
 * Takes bench->profile_runs traced runs per side (A and B alternating; stored successful
 * profiles of the same builds, benchmark and machine are reused unless req->fresh),
 * records them in the store (kind "io") and computes the similarity report. Fills a new
 * *out (free it with io_attribution_free()); a problem that leaves no report (every run of
 * a side failed, tracing refused) is out->error, not a failure. Returns 0, RP_EINTERRUPT
 * when the user interrupted, RP_EINTERNAL on a store failure.
 */
int compare_profile_io(const struct compare_request *req, const struct bench_config *bench,
		       int64_t benchmark_id, int64_t machine_id, int64_t comparison_id,
		       struct io_attribution **out);

void io_attribution_free(struct io_attribution *a);

#endif
