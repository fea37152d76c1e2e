#ifndef REVPERF_COMPARE_RUN_OUTPUT_H
#define REVPERF_COMPARE_RUN_OUTPUT_H

#include "core/config.h"
#include "util/common.h"

/*
 * The runs of one side of a comparison share one append-only log; each run's output
 * follows a header line (written by the runner: proc_spec.log_header) and is located by
 * (offset, length), stored with the run.
 */
/* The log's size, or -1. */
int64_t run_log_size(const char *path);
/* Appends [off, off + len) of the log (at most 256 MiB) to sb; 0 or -1. */
int run_log_read(const char *path, int64_t off, int64_t len, struct strbuf *sb);

/*
 * Notes in detail (a run's note, "; " between notes) how much of the run's output was not
 * kept in its log (beyond the log limit): nothing when all was kept.
 */
struct proc_result;
void run_output_note_dropped(struct strbuf *detail, const struct proc_result *res);

/*
 * Appends the last non-empty line of [off, off + len) of the log at path to line (at most
 * 120 bytes, control characters as '?'): what a run printed, for a message. 0 or -1.
 */
int run_output_last_line(const char *path, int64_t off, int64_t len, struct strbuf *line);

/* Mean steady-state time of `revperf-iteration SECONDS` lines (PeASS rule, k = 5, CV 2%);
 * false when there are none. *steady tells whether a steady window was found. */
bool run_output_iterations(const char *out, double *value, bool *steady);

/* The value of a reported metric in a run's output (last match, or mean of all); false
 * with a note appended to `note` when there is no match or it is not a number. */
bool run_output_reported(const struct reported_metric *rm, const char *out, double *value,
			 struct strbuf *note);

#endif
