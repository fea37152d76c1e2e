#ifndef REVPERF_COLLECT_MACHINE_H
#define REVPERF_COLLECT_MACHINE_H

#include <stddef.h>

/* What a run was measured on. Results from different machines are never compared silently. */
struct machine_info {
	char hostname[128];
	char cpu_model[160];
	int cores;          /* online CPUs */
	char kernel[128];   /* uname -r */
	char governor[32];  /* cpufreq governor of cpu0, or "unknown" */
};

/* Reads /proc/cpuinfo, uname and sysfs. Never fails (unknown fields say "unknown"). */
void machine_info_read(struct machine_info *m);
/*
 * The CPU model named in the text of a /proc/cpuinfo ("model name", or on other
 * architectures "Processor", "cpu model", "cpu", "Model"), written to out (truncated to
 * out_size); "unknown" when none is present. Thread-safe.
 */
void machine_cpu_model_parse(const char *cpuinfo, char *out, size_t out_size);
/* The 1-minute load average, or -1 when /proc/loadavg cannot be read. */
double machine_loadavg1(void);

#endif
