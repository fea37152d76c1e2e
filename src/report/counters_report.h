#ifndef REVPERF_REPORT_COUNTERS_REPORT_H
#define REVPERF_REPORT_COUNTERS_REPORT_H

/* `revperf profile --counters`: the summary of one sampled run. */
#include <stdbool.h>
#include <stdio.h>

#include "collect/proc.h"
#include "collect/sampler.h"

/*
 * Per counter of rs: samples, min, median, mean and max, after a line naming the command,
 * its status, wall time and sampling interval (and `csv`, the series file, when not NULL),
 * as text or (json) one JSON object. Write errors show in ferror(f).
 */
void counters_report_summary(FILE *f, const struct run_samples *rs, const struct proc_result *res,
			     const char *command, const char *csv, bool json);

#endif
