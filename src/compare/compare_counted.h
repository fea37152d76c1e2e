#ifndef REVPERF_COMPARE_COMPARE_COUNTED_H
#define REVPERF_COMPARE_COMPARE_COUNTED_H

/*
 * Counted metrics under a benchmark's verdict (ir, sim-cycles; METHODS.md sections 1-2,
 * docs/counted.md): after the timing runs, separate runs of the same builds under
 * valgrind's callgrind (collect/valgrind_run.h), A and B alternating, no warm-up, at
 * least bench->min_count_runs per side and up to max_count_runs when a side's counts do
 * not agree. Each run is recorded as a profile (kind "vg-ir", or "vg-cache" with the
 * cache simulation) with its counts, and reused by later comparisons of the same builds.
 * The verdict of a count whose runs agree is exact (analysis/verdict.h, step 7); the
 * functions and call paths whose instructions changed come from the same runs.
 */
#include <stdbool.h>
#include <stddef.h>

#include "analysis/profile_attribution.h"
#include "compare/compare.h"

/* Functions and call paths kept per attribution, ranked by absolute change. */
#define COUNTED_TOP 10

struct counted_attribution {
	char *error;	     /* why there are no counts (NULL when there are) */
	char kind[16];	     /* "vg-ir" or "vg-cache" */
	double tolerance;    /* of the counts (bench->count_tolerance) */
	size_t runs[2];	     /* successful counted runs used per side (A, B) */
	size_t reused[2];    /* of which were stored before this comparison */
	size_t failed[2];    /* counted runs that failed in this comparison */
	double elapsed_s;    /* the counted phase's time (runs, reading them); 0 in a replay */
	char *dir;	     /* where this comparison's counted runs are */
	size_t wrappers;     /* shell processes left out of the counts (first run of A) */
	size_t processes;    /* processes counted (first run of A) */
	/* The functions and call paths whose instructions changed (at most COUNTED_TOP of
	 * each), and the instructions per run (abs.total), wrappers left out: the attribution
	 * of every kind of profile (analysis/profile_attribution.h). */
	struct attribution abs;
	bool have_abs;
	char *attribution_error; /* the counts are there, the call graph could not be read */
};

/*
 * Sets the counted runs' timeout where no timing run gave one (compare.c): called once,
 * before the first counted run that is made (none when the stored ones answer). Returns 0
 * with *timeout_ns (the timing runs' timeout) or *timed_out (the run that sets it timed
 * out: no counted run is made), or RP_EINTERRUPT, RP_EINPUT, RP_EINTERNAL.
 */
struct counted_probe {
	int (*run)(void *arg, bool *timed_out, ns_t *timeout_ns);
	void *arg;
};

/*
 * The counted metrics of `metrics` (those with METRIC_COUNTED): runs as above with a
 * timeout of `timeout_ns` x VALGRIND_SLOWDOWN / 10 each (timeout_ns is the timing runs';
 * probe non-NULL: from probe->run() instead, before the first counted run made; when that
 * timed out, no counted run is made and out->error says so),
 * their verdicts into the outcomes (m->r, m->measured), and the attribution into a new
 * *out (free with counted_attribution_free()). In the attribution a function the binary
 * diff paired as renamed (`renamed`, from compare_same_code()) is one entry, "old -> new",
 * in the functions and in every call path; PLT entries are named "memcpy@plt"
 * (profile/callgrind_plt.h). A side without enough successful counted runs leaves its
 * metrics unmeasured with out->error saying why. Returns 0, RP_EINTERRUPT, RP_EINTERNAL
 * (store).
 */
int compare_counted(const struct compare_request *req, const struct bench_config *bench,
		    int64_t benchmark_id, int64_t machine_id, int64_t comparison_id,
		    ns_t timeout_ns, const struct counted_probe *probe,
		    struct metric_outcome *metrics, size_t nr_metrics,
		    const struct renamed_fn *renamed, size_t nr_renamed,
		    struct counted_attribution **out);

void counted_attribution_free(struct counted_attribution *a);

#endif
