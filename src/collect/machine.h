#ifndef REVPERF_COLLECT_MACHINE_H
#define REVPERF_COLLECT_MACHINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What a run was measured on. Results from different machines are never compared silently. */
struct machine_info {
	char hostname[128];
	char cpu_model[160];
	int cores;          /* online CPUs */
	char kernel[128];   /* uname -r */
	char governor[32];  /* cpufreq governor of cpu0, or "unknown" */
};

/*
 * Reads /proc/cpuinfo, uname and sysfs. Never fails (unknown fields say "unknown"). The
 * host name is REVPERF_MACHINE when set and not empty (`revperf worker --machine NAME`:
 * the machine's name in the store, for workers that share a host name).
 */
void machine_info_read(struct machine_info *m);
/*
 * The CPU model named in the text of a /proc/cpuinfo ("model name", or on other
 * architectures "Processor", "cpu model", "cpu", "Model"), written to out (truncated to
 * out_size); "unknown" when none is present. Thread-safe.
 */
void machine_cpu_model_parse(const char *cpuinfo, char *out, size_t out_size);
/* The 1-minute load average, or -1 when /proc/loadavg cannot be read. */
double machine_loadavg1(void);
/*
 * The same from a descriptor of /proc/loadavg kept open (machine_loadavg_open(): the
 * descriptor, or -1; the caller closes it), read again at each call: one system call
 * instead of four, for a value taken at every run. fd -1: machine_loadavg1().
 */
int machine_loadavg_open(void);
double machine_loadavg1_fd(int fd);

/*
 * Who runs where, to tell later whether a process is still alive (a comparison killed with
 * SIGKILL) and to name the holder of a lock. machine_boot_id(): the kernel's boot id
 * (/proc/sys/kernel/random/boot_id), "" when unreadable. machine_process_start(): when
 * process pid started, in clock ticks after boot (/proc/PID/stat, field 22), -1 when there
 * is no such process; (boot id, pid, start) names one process for the life of the machine.
 * machine_process_command(): its command line with spaces between the arguments (or its
 * name), truncated to size, "" when unknown. Thread-safe.
 */
void machine_boot_id(char *out, size_t size);
int64_t machine_process_start(pid_t pid);
void machine_process_command(pid_t pid, char *out, size_t size);

#endif
