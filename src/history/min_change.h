#ifndef REVPERF_HISTORY_MIN_CHANGE_H
#define REVPERF_HISTORY_MIN_CHANGE_H

/* The smallest change point kept along a series, shared by `revperf history` and report. */
#include "core/config.h"

/*
 * The smallest relative shift that a change point of `metric` along benchmark `bench`
 * must have to be kept (changepoint_opts.min_rel_change): the tolerance its verdict uses,
 * so that history never calls a change what compare judges equal: for a counted metric
 * (ir, sim-cycles: counts that the machine's load does not change, where a shift of a few
 * instructions is significant) the benchmark's count-tolerance (docs/counted.md), for
 * every other metric its tolerance. A benchmark cfg does not define is looked up by the
 * part of its name before the last '/' (a gbench case, a test of a suite), then cfg's
 * [defaults]; cfg NULL gives the built-in defaults, 0.1% and 2%.
 */
double history_min_change(struct config *cfg, const char *bench, const char *metric);

#endif
