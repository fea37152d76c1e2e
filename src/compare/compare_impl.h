#ifndef REVPERF_COMPARE_COMPARE_IMPL_H
#define REVPERF_COMPARE_COMPARE_IMPL_H

/*
 * What the comparison's files (compare.c, compare_replay.c, compare_run.c) share; not for
 * use outside them. Not thread-safe, as compare.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "analysis/verdict.h"
#include "collect/cpu_quiet.h"
#include "compare/compare.h"
#include "util/rng.h"

struct run_slot; /* compare_run.c */

/* Everything one benchmark's sampling loop needs (its runs: compare_run.h). */
struct bench_ctx {
	const struct compare_request *req;
	const struct bench_config *bench;
	struct bench_outcome *out;
	const struct metric_def **defs; /* measured metrics (primary ones included) */
	size_t nr_defs;
	bool want_iterations;
	bool want_perf; /* a measured metric is a perf_event counter */
	bool want_io;	/* a measured metric is rchar or wchar (/proc/<pid>/io) */
	int64_t machine_id, comparison_id;
	struct store_run_filter filter[2];
	size_t seq[2];	  /* runs started per side in this comparison, for log headers */
	int64_t pair_seq; /* the current round: both runs of an interleaved pair share it */
	size_t consecutive_failures[2];
	struct rng *rng;
	struct timespec started;
	size_t planned_max;
	double alpha;	  /* the comparison's (a replayed one's as stored) */
	ns_t timeout_ns;  /* of the next runs; refreshed at each look (bench_run_timeout) */
	char *log_prefix; /* logs/runs/<comparison>/<benchmark>-: + "A.log" or "B.log" */
	struct cpu_saved affinity; /* before `pin`, put back after the benchmark */
	int64_t last_ok_offset[2], last_ok_length[2]; /* the output of a side's last ok run */
	bool have_ok_output[2];
	bool lookahead;		   /* the next run may be submitted before this one ends */
	struct run_slot *inflight; /* submitted, not yet stored; NULL: none */
	int loadavg_fd;		   /* /proc/loadavg, read at every run; -1: by name */
	/* Every metric counted and no timeout known: one warm-up of A without valgrind sets
	 * the counted runs' timeout, before the first counted run made (compare.c,
	 * counted_timeout_probe()); while it runs (timeout_probe), its status. */
	bool want_probe, timeout_probe;
	enum run_status probe_status;
};

/*
 * Loads both sides' values of one metric and decides it at level alpha (compare.c).
 * Returns 0, or RP_EINTERNAL on a store failure; m keeps the values on success.
 */
int compare_evaluate_metric(struct bench_ctx *c, struct metric_outcome *m, double alpha);

/*
 * Evaluates the primary metrics at level alpha (compare.c); *all_decided tells whether
 * sampling may stop. Returns 0, or RP_EINTERNAL on a store failure.
 */
int compare_evaluate_primaries(struct bench_ctx *c, double alpha, bool *all_decided);

/*
 * One benchmark measured (or, req->replay, shown again), recorded as the next outcome of
 * out, whose benches grow (*alloc: their allocated count); compare.c. Returns 0 or an
 * RP_E* code.
 */
int compare_one(const struct compare_request *req, const struct bench_config *bench,
		struct compare_result *out, size_t *alloc, int64_t machine_id, struct rng *rng);

/*
 * req->replay: subtracts from c->out->reused_a/b the runs the replayed comparison made
 * itself (compare_replay.c). Returns 0, or RP_EINTERNAL on a store failure.
 */
int compare_replay_reused(const struct compare_request *req, struct bench_ctx *c);

/*
 * The runs' issues and how each run ended, into c->out (which owns them), for the report
 * (compare_replay.c). Returns 0, or RP_EINTERNAL on a store failure.
 */
int compare_load_run_records(struct bench_ctx *c);

/*
 * A stored comparison's benchmark shown again: its verdicts at the alpha of its last look,
 * no run (compare_replay.c). Returns 0 or an RP_E* code.
 */
int compare_replay_bench(struct bench_ctx *c, const struct sequential_plan *plan, bool extensible);
/*
 * A comparison interrupted, or out of time (not interrupted), with fewer than MIN runs on a
 * side never took a look: its metrics are left without a verdict (measured false, the
 * reason said), as it printed them.
 */
void compare_before_first_look(struct bench_ctx *c, bool interrupted);

/*
 * req->replay: the stored comparison's verdicts again into out; nothing is run or stored
 * (compare_replay.c). Returns 0 or an RP_E* code; out is released by the caller.
 */
int compare_replay(const struct compare_request *req, struct compare_result *out);

#endif
