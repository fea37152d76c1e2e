#ifndef REVPERF_CORE_METRIC_H
#define REVPERF_CORE_METRIC_H

#include "analysis/verdict.h"
#include "collect/proc.h"
#include "util/common.h"

/* How a metric's values are displayed; values are stored in these base units. */
enum metric_unit {
	UNIT_SECONDS,
	UNIT_BYTES,
	UNIT_COUNT,
	UNIT_CUSTOM, /* a unit named by unit_label ("MB/s"), values shown as they are */
};

/* How a metric is measured and judged (struct metric_def.flags). */
enum metric_flags {
	/* Counted in separate runs under valgrind after the timing runs (METHODS.md 1,
	 * "Deterministic mode"; compare/compare_counted.h), never in the timing runs. */
	METRIC_COUNTED = 1 << 0,
	/* A count of work that may be the same in every run: when each side's runs agree
	 * within VERDICT_EXACT_SPREAD, the ratio is exact (METHODS.md 2, step 7). */
	METRIC_COUNT = 1 << 1,
	/* Needs valgrind's cache and branch simulation in the counted runs. */
	METRIC_CACHE_SIM = 1 << 2,
	/* Measured by a perf_event counter in the timing runs: the runner opens the counters
	 * only when a measured metric has this flag (an inherited counter costs every run). */
	METRIC_PERF = 1 << 3,
};

/* One metric revperf can measure per run (METHODS.md section 1). A static table. */
struct metric_def {
	const char *name;
	enum metric_unit unit;
	enum direction direction;
	const char *help;
	const char *unit_label; /* UNIT_CUSTOM only */
	unsigned flags;		/* enum metric_flags */
};

/*
 * A metric defined at run time (reported by a benchmark, or imported). Returns a heap
 * object with copies of the strings (unit_label may be NULL: no unit); free it with
 * metric_def_free(). Built-in metrics are static and never freed.
 */
struct metric_def *metric_def_new(const char *name, enum metric_unit unit, const char *unit_label,
				  enum direction direction, const char *help);
void metric_def_free(struct metric_def *def);

/* The metric called name, or NULL. */
const struct metric_def *metric_find(const char *name);
size_t metric_count(void);
const struct metric_def *metric_at(size_t i);
/*
 * Whether every successful timing run yields def on any machine: the built-in metrics of
 * getrusage() and the clock (wall, user, sys, cpu, maxrss, faults, context switches); not
 * rchar/wchar (/proc/PID/io may lack), perf counters, iteration or the counted metrics.
 */
bool metric_in_every_run(const struct metric_def *def);

/*
 * Parses a comma-separated list ("wall, cpu" or "all") into *out (an array the caller
 * frees; the pointed-to definitions are static). Duplicates are dropped. Returns 0, or
 * RP_EINPUT after an error naming origin and the unknown name.
 */
int metric_parse_list(const char *list, const char *origin, const struct metric_def ***out,
		      size_t *n);
/* The same, where names may also be those of the n_extra run-time metrics in extra. */
int metric_parse_list_with(const char *list, const char *origin, const struct metric_def *const *extra,
			   size_t n_extra, const struct metric_def ***out, size_t *n);

/*
 * The metric's value from one run's measurements. Returns false when the machine could not
 * measure it (an unsupported perf counter, unreadable /proc io, no iterations), so that it
 * is reported as unsupported, never as zero.
 */
bool metric_value(const struct metric_def *def, const struct proc_metrics *m, double *value);

/*
 * The unit of a count that has one, as the attribution writes it: "Ir" (ir), "cycles"
 * (sim-cycles, cycles), "insns" (instructions); NULL for other metrics (page faults,
 * context switches: plain counts).
 */
const char *metric_count_unit(const struct metric_def *def);

/* Formats value with its unit ("12.3 ms", "4.1 MiB", "1234", "1.25 G Ir") into buf. */
void metric_format(const struct metric_def *def, double value, char *buf, size_t size);
/* A mean and its sd as text, each with the unit (metric_format_mean_sd()). */
struct metric_mean_sd {
	char mean[32];
	char sd[32];
};
/*
 * The n means and sds of a row (a metric's baseline and target) in one unit and with as
 * many digits after the point: the unit metric_format() chooses for the largest mean,
 * enough digits for each mean's significant digits (as metric_format() writes it alone)
 * and two of each sd, none finer than the metric resolves (a nanosecond, a byte, one count
 * in k, M or G): "1.250 ms ± 0.039 ms", "592.1234M ± 0.0012M". An sd of exactly 0 is "0";
 * a nonzero one below the last digit shown is "<0.001 ms", never 0. Into out[0..n-1].
 */
void metric_format_mean_sd(const struct metric_def *def, size_t n, const double *mean,
			   const double *sd, struct metric_mean_sd *out);

#endif
