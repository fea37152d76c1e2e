#ifndef REVPERF_COLLECT_PERF_COUNTERS_H
#define REVPERF_COLLECT_PERF_COUNTERS_H

#include <sys/types.h>

#include "collect/proc.h"

/*
 * perf_event counters on one process tree (internal to the runner, see proc.h for the
 * probe). Each counter is opened on its own (no PERF_FORMAT_GROUP, which older kernels refuse
 * together with inherit) with inherit = 1, so that descendants are counted, disabled = 1 and
 * enable_on_exec = 1, so that counting starts at the child's exec and not in revperf's code
 * between fork and exec.
 */
struct perf_set {
	int fd[PERF_COUNTER_MAX]; /* -1: not opened (unsupported or not asked for) */
};

/* Marks every counter of ps as not opened (so that perf_set_close() is always safe). */
void perf_set_init(struct perf_set *ps);

/*
 * Opens every counter that proc_perf_probe() reports as supported on the process pid,
 * which must not have exec'd yet. A counter that fails to open is left closed (and will be
 * reported as unsupported for this run). Never fails as a whole.
 */
void perf_set_open(struct perf_set *ps, pid_t pid);

/*
 * Reads the counters into m->perf_supported/perf_value, scaling multiplexed counts by
 * time_enabled / time_running. A counter that never ran (or was not opened) is reported
 * as unsupported with the value NAN. Call after the process tree exited.
 */
void perf_set_read(const struct perf_set *ps, struct proc_metrics *m);

/* Closes the counters; safe on an initialised set whatever was opened. */
void perf_set_close(struct perf_set *ps);

#endif
