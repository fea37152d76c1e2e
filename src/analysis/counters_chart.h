#ifndef REVPERF_ANALYSIS_COUNTERS_CHART_H
#define REVPERF_ANALYSIS_COUNTERS_CHART_H

/*
 * From counter series (collect/sampler.h: sampled, imported from CSV or read from the
 * store) to the input of the control charts (analysis/control_chart.h).
 */
#include "analysis/control_chart.h"
#include "collect/sampler.h"

/* Most runs per side of one chart. */
#define COUNTERS_MAX_RUNS 10000

/*
 * Adds one run named `name` to `side` of `in` with every series of `rs`. Returns RP_OK,
 * or RP_EINPUT after error() for a sample the analysis refuses or a run beyond
 * COUNTERS_MAX_RUNS on that side.
 */
int counters_input_add(struct cchart_input *in, enum cchart_side side, const char *name,
		       const struct run_samples *rs);

#endif
