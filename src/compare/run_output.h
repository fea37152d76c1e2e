#ifndef REVPERF_COMPARE_RUN_OUTPUT_H
#define REVPERF_COMPARE_RUN_OUTPUT_H

#include "core/config.h"
#include "store/store.h"
#include "util/common.h"

/*
 * The runs of one side of a comparison share one append-only log; each run's output
 * follows a header line (written by the runner: proc_spec.log_header) and is located by
 * (offset, length), stored with the run.
 */
/* The log's size, or -1 (none, or not a regular file). */
int64_t run_log_size(const char *path);
/* Appends [off, off + len) of the log (at most 256 MiB) to sb, as text to scan: a NUL
 * byte (binary output such as a compressor's) reads as a space, so that what follows it
 * is still seen. Returns 0 or -1. */
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

/*
 * The benchmark as the store knows it (its command, reset into sb and returned): with
 * output = discard it writes no log, another measurement than the same command logged,
 * whose runs are not reused for it.
 */
const char *run_output_identity(struct strbuf *sb, const struct bench_config *bench);

/*
 * What a reported metric read in a benchmark's first run, shown once per benchmark so that
 * the user sees which number is judged: the line of the match used (the last one; with
 * match=mean, the last of those averaged), cut to about 240 bytes around the number (a
 * carriage return ends a line too, as on a terminal: progress lines redraw with it).
 */
struct reported_line {
	const char *metric; /* the definition's name: valid while the configuration is */
	char *line;	    /* NULL when the run's output had no match */
	size_t value_at, value_len; /* the number within line, in bytes */
	size_t matches;		    /* matches in the run's output */
	bool mean;		    /* match=mean */
	char side;		    /* 'A' or 'B': whose run it is */
	int64_t run_id;
};

/*
 * The lines the reported metrics of bench matched in the oldest successful run of the
 * baseline (filter[0]), or of the target when the baseline has none: one per reported
 * metric in *out (free with reported_lines_free()), none when there is no such run or its
 * log is gone. Returns 0, or RP_EINTERNAL on a store failure.
 */
int run_output_first_lines(struct store *st, const struct store_run_filter filter[2],
			   const struct bench_config *bench, struct reported_line **out,
			   size_t *nr);
void reported_lines_free(struct reported_line *rl, size_t nr);

#endif
