#ifndef REVPERF_COLLECT_OUTPUT_RELAY_H
#define REVPERF_COLLECT_OUTPUT_RELAY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/common.h"

/*
 * The relay of a run's output: the child writes its stdout and stderr into a pipe, and
 * revperf copies the bytes to the log file, at most `limit` of them per run. Of an output
 * longer than that, the log keeps the beginning and the last bytes (min(64 KiB, limit / 4),
 * where a benchmark prints its summary), with a line `[revperf: ...]` between them, and
 * the rest is counted, never written: a benchmark printing gigabytes cannot fill the disk.
 * An observer (the counter lines of sampling) sees every byte, kept or not.
 * Not thread-safe; one relay per run.
 */
struct output_relay;

/* Sees every chunk of output as it arrives; t_ns is CLOCK_MONOTONIC. */
typedef void (*output_observe_fn)(void *arg, const char *buf, size_t len, ns_t t_ns);

/*
 * Creates the pipe (close-on-exec, its read end non-blocking) and the relay to log_fd (the
 * log file opened for appending, or -1: the output is discarded); log_path names it in
 * messages. limit 0 = no limit. *write_end is the pipe's end for the child, the caller's
 * to close once the child has it. Returns 0, or -1 after an error line.
 * Free with output_relay_free().
 */
int output_relay_new(int log_fd, const char *log_path, uint64_t limit, output_observe_fn observe,
		     void *observe_arg, struct output_relay **out, int *write_end);
void output_relay_free(struct output_relay *r);

/* The pipe's read end to poll, or -1 once it reached its end. */
int output_relay_fd(const struct output_relay *r);

/* Copies what the pipe holds now (one read). 1 bytes came, 0 none now, -1 end of file. */
int output_relay_read(struct output_relay *r);

/*
 * After the child's exit: reads the rest, until end of file, which comes once the last
 * process holding the pipe is gone. Stops early when the process group pgid is gone and
 * nothing is waiting (only a process that left the group holds the pipe), and after 1 s at
 * most. Then writes the kept end of a long output to the log. Returns true when the pipe
 * was still open (the rest of that process's output is lost).
 */
bool output_relay_drain(struct output_relay *r, pid_t pgid);

/* Bytes the child wrote, and of them not written to the log (beyond the limit). */
uint64_t output_relay_total(const struct output_relay *r);
uint64_t output_relay_dropped(const struct output_relay *r);

#endif
