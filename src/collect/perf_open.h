#ifndef REVPERF_COLLECT_PERF_OPEN_H
#define REVPERF_COLLECT_PERF_OPEN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Opening and reading one perf_event counter: shared by revperf's probe
 * (collect/perf_counters.c) and revperf-spawn, whose child opens the counters on itself
 * before its exec, and which reads them after the child's process group is gone. No allocation, no
 * stdio, no global state: revperf-spawn's rules (collect/spawn/revperf_spawn.c).
 *
 * index is a counter of enum perf_counter (collect/proc.h), below SPAWN_PERF_MAX
 * (collect/spawn_protocol.h). Each counter is opened on its own (no PERF_FORMAT_GROUP,
 * which older kernels refuse together with inherit) with inherit = 1, so that descendants
 * are counted, disabled = 1 and enable_on_exec = 1, so that counting starts at the child's
 * exec and not in the spawner's code between fork and exec; user_only sets exclude_kernel
 * and exclude_hv (perf_event_paranoid >= 2 without CAP_PERFMON).
 */

/* A file descriptor (close-on-exec) counting on pid (0: the caller), or -1 with errno. */
int perf_open_counter(int index, pid_t pid, bool user_only);

/* The layout of read() with TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING and no GROUP. */
struct perf_reading {
	uint64_t value;
	uint64_t time_enabled;
	uint64_t time_running;
};

/* Reads fd into *r. Returns 0, or -1 when the read failed or was short. */
int perf_read_counter(int fd, struct perf_reading *r);

#endif
