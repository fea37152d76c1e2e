#ifndef REVPERF_REPORT_CCT_TOP_H
#define REVPERF_REPORT_CCT_TOP_H

/*
 * The report of one calling context tree (`revperf profile --cct`): its heaviest contexts
 * by inclusive and by exclusive weight.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "profile/cct.h"
#include "profile/profile_load.h"

struct profile_threads;

struct cct_top_options {
	size_t top;	  /* contexts per list (0 = 20) */
	const char *unit; /* the weight's unit: "ns" (shown as time), "Ir", "samples", ... */
	bool no_calls;	  /* the tree counts no calls (sampled): JSON says null, not 0 */
	/* Totals a user can check against the run: each thread's time (NULL: not known) and
	 * the clock that measured it ("tsc", "monotonic", "none"; NULL: not known). */
	const struct profile_threads *threads;
	const char *clock;
};

/*
 * The indices of the `k` nodes (the root excluded) with the largest inclusive
 * (by_exclusive false) or exclusive weight, heaviest first (ties: node order), in an array
 * the caller frees; *n is their number (<= k).
 */
uint32_t *cct_top_nodes(const struct cct *t, size_t k, bool by_exclusive, size_t *n);

/*
 * Text: what the clock measures, each thread's total and their sum (labelled: summed
 * over threads, waiting included), the total, then the two lists with share of the total,
 * calls and the context.
 */
int cct_top_text(FILE *f, const struct cct *t, const struct cct_top_options *o);

/* JSON (docs/json-schema.md, "profile"): total, unit, clock, threads and both lists with
 * full paths. */
int cct_top_json(FILE *f, const struct cct *t, const struct cct_top_options *o);

/* The object cct_top_json() prints, new (the caller owns the reference). */
json_t *cct_top_to_json(const struct cct *t, const struct cct_top_options *o);

#endif
