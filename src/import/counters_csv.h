#ifndef REVPERF_IMPORT_COUNTERS_CSV_H
#define REVPERF_IMPORT_COUNTERS_CSV_H

/*
 * Counter series from CSV (docs/counters.md), so that the results of other load-test
 * tools can be charted: a header line naming the columns `timestamp`, `counter`, `value`
 * and optionally `run` (any order, other columns ignored), then one sample per line.
 * Without a `run` column the file is one run; with one, each distinct run name is a run
 * (in order of first appearance). Timestamps are seconds (any origin: each run's series
 * are shifted so that its first sample is at 0); fields may be double-quoted.
 */
#include <stddef.h>

#include "analysis/control_chart.h"
#include "collect/sampler.h"

struct counters_csv_run {
	char *name; /* "FILE" or "FILE:RUN" */
	struct run_samples samples;
};

/*
 * Reads `path` into *runs (appended to the *nr runs already there, ALLOC_GROW-style with
 * *alloc; free each with counters_csv_runs_free()). Samples of a series that come out of
 * timestamp order are sorted (stable), with one warning per file. Returns RP_OK, or
 * RP_EINPUT after one error() line naming the file and line: no header or a header without
 * the three columns, a line with too few fields, a timestamp or value that is not a finite
 * number (NaN and inf included), a file without samples.
 */
int counters_csv_read(const char *path, struct counters_csv_run **runs, size_t *nr, size_t *alloc);

void counters_csv_runs_free(struct counters_csv_run *runs, size_t nr);

/*
 * Writes one run's series as CSV (the header, then every sample of every series in series
 * order, names quoted when they need it), through a temporary file renamed into place.
 * Returns RP_OK, or RP_EINTERNAL after error().
 */
int counters_csv_write(const char *path, const struct run_samples *rs);

/*
 * Adds every run of the CSV file at path to `side` of `in`. Returns 0, or RP_EINPUT
 * after error() (the file's errors as counters_csv_read() reports them, a series the
 * analysis refuses).
 */
int counters_csv_chart_add(const char *path, struct cchart_input *in, enum cchart_side side);

#endif
