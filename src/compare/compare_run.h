#ifndef REVPERF_COMPARE_COMPARE_RUN_H
#define REVPERF_COMPARE_COMPARE_RUN_H

/*
 * Private to compare/: the runs of one benchmark's sampling loop (compare.c's loop; its
 * state, struct bench_ctx, is in compare_impl.h), in compare_run.c: each run is submitted
 * to the spawner, measured, and stored as it ends.
 *
 * The next run may be submitted before the current one ends (lookahead): the spawner then
 * starts it the moment the current one exits with status 0, while revperf relays and
 * stores the current one, so that revperf's own work is not between two runs (the
 * spawner's fork is, as hyperfine's is). A run behind one that failed, timed out or was
 * interrupted is cancelled by the spawner and never happened; the loop plans again from
 * the stored counts; while either side's last run failed, runs go one at a time (both
 * sides in every round, as without lookahead). Lookahead is on for the plain timing runs
 * whose output is relayed (log-limit, the default) and off with counter sampling and for
 * Google Benchmark cases, whose runs need revperf during the run or share a file between
 * runs.
 */
#include <stdbool.h>
#include <time.h>

#include "compare/compare.h"
#include "compare/compare_impl.h" /* struct bench_ctx */

/* A benchmark stops after this many consecutive failed runs on one side. */
#define MAX_CONSECUTIVE_FAILURES 3
/* Timeout of runs before the baseline has a median (METHODS.md 1: 10 x median, >= 60 s;
 * collect/proc.h). */
#define FIRST_RUN_TIMEOUT_NS RUN_TIMEOUT_FIRST_NS

static inline const struct compare_side *bench_side(const struct bench_ctx *c, int side)
{
	return side ? &c->req->b : &c->req->a;
}

/* Seconds since *t0 (CLOCK_MONOTONIC). */
double bench_seconds_since(const struct timespec *t0);

/* Reports a phase to the request's progress callback, if any. */
void compare_progress_phase(const struct compare_request *req, enum compare_phase phase,
			    const char *bench, size_t runs);

/*
 * Timeout of the next runs: configured, else 10 x the baseline's median wall time (at
 * least 60 s; 600 s while the baseline has no successful run). Called before the first
 * run and at each look, not per run: it reads every stored baseline value.
 */
ns_t bench_run_timeout(struct bench_ctx *c);

/*
 * Successful runs of a side, counting the one in flight as if it will succeed (so that
 * the loop does not plan one run too many; it plans again if that one fails).
 */
size_t bench_planned_ok(const struct bench_ctx *c, int side);

/*
 * Submits a run of side and, with lookahead, finishes and stores the run in flight
 * before it; without, finishes and stores this one. Sets *stop when the side keeps failing
 * (the benchmark's error is set). Returns 0, RP_EINTERRUPT when the user interrupted,
 * RP_EINPUT when the benchmark cannot be started (printed), RP_EINTERNAL on a store or
 * spawner failure. On an error, a run may still be in flight: bench_run_abandon().
 */
int bench_run_next(struct bench_ctx *c, int side, bool warmup, bool *stop);

/* Finishes and stores the run in flight, if any: as bench_run_next() without a new run. */
int bench_run_drain(struct bench_ctx *c, bool *stop);

/* After an error or an interrupt: finishes the run in flight without storing it. */
void bench_run_abandon(struct bench_ctx *c);

#endif
