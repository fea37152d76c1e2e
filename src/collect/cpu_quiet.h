#ifndef REVPERF_COLLECT_CPU_QUIET_H
#define REVPERF_COLLECT_CPU_QUIET_H

/*
 * Noise controls of the timing runs (docs/measurement.md, "Pinning and quiet"): both
 * sides pinned to one CPU set (inherited by every benchmark process), and a wait for a
 * quiet machine before each pair of runs. No global state.
 */
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/common.h"

enum cpu_pin_mode { CPU_PIN_OFF = 0, CPU_PIN_AUTO, CPU_PIN_LIST };

#define CPU_PIN_MAX 1024

struct cpu_pin {
	enum cpu_pin_mode mode;
	unsigned char cpus[CPU_PIN_MAX / 8]; /* CPU_PIN_LIST: bit i = CPU i */
};

/*
 * Parses "off", "auto" or a CPU list ("3", "2,3", "0-3,8"). Returns 0, or -1 (no
 * message) for anything else or a CPU >= CPU_PIN_MAX.
 */
int cpu_pin_parse(const char *s, struct cpu_pin *out);

/*
 * Applies p to the calling process, so that every process it starts from now on inherits
 * it (the caller restarts the process that forks the benchmarks). auto is the
 * highest-numbered CPU this process may run on when it may run on two or more (CPU 0
 * takes most interrupts), else nothing. Writes the CPUs used ("3", "2-3") into desc
 * ("" when nothing was pinned). Returns 0, or RP_EINPUT after error() when the kernel
 * refuses the set (a CPU that is offline or not allowed).
 */
int cpu_pin_apply(const struct cpu_pin *p, char *desc, size_t desc_size);

/* The calling process's CPU set, saved to put back after a pinned benchmark. */
struct cpu_saved {
	bool valid;
	unsigned char set[128]; /* a cpu_set_t */
};
void cpu_pin_save(struct cpu_saved *s);
/*
 * After cpu_pin_apply(): hands the pinned CPUs to the runs (the spawner starts on them,
 * proc_spawner_cpus()) and moves the calling process to the CPUs of before that are not
 * pinned, when there are any, so that revperf's own work (it stores a run while the next
 * one runs) does not share the runs' CPUs. Nothing when nothing was pinned.
 */
void cpu_pin_hand_to_runs(const struct cpu_saved *before);
/* Puts the saved set back on the calling process and lets the runs use it again. */
void cpu_pin_restore(const struct cpu_saved *s);

/*
 * The fraction of the machine's CPU time that was busy (not idle or iowait) over the next
 * `interval_ns`, from /proc/stat; -1 when it cannot be read. Sleeps interval_ns.
 */
double cpu_busy_fraction(ns_t interval_ns);

/*
 * Waits until the machine is quiet (cpu_busy_fraction over 200 ms at most `threshold`)
 * or `max_wait_ns` has passed, or an interrupt was requested. Returns the time waited;
 * *quiet tells whether the machine was quiet at the end.
 */
ns_t cpu_wait_quiet(double threshold, ns_t max_wait_ns, bool *quiet);

#endif
