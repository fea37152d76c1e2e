#ifndef REVPERF_COLLECT_PERF_COUNTERS_H
#define REVPERF_COLLECT_PERF_COUNTERS_H

#include <stdint.h>

#include "collect/proc.h"

/*
 * revperf's side of the perf_event counters of a run (internal to the runner, see proc.h
 * for the probe): which counters to ask the spawner for, and their values from its report.
 * The spawner opens them on the child before its exec and reads them once the child's
 * process group is gone (collect/perf_open.h says how they are opened).
 */

/*
 * The counters proc_perf_probe() reports as supported, as the request's masks
 * (collect/spawn_protocol.h): *mask, and in *user_only those that count user space only.
 */
void perf_counters_request(uint32_t *mask, uint32_t *user_only);

/*
 * Fills m->perf_supported/perf_value from the spawner's report (struct spawner_escapes):
 * bit c of read says counter c was read, perf[c] holds its value, time enabled and time
 * running. Multiplexed counts are scaled by time_enabled / time_running; a counter that
 * never ran (or was not opened, or not read) is reported as unsupported with the value NAN.
 */
void perf_counters_fill(uint32_t read, const uint64_t perf[][3], struct proc_metrics *m);

#endif
