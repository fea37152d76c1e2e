#include "collect/perf_open.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collect/spawn_protocol.h"

/* In the order of enum perf_counter (collect/proc.h). */
static const struct {
	uint32_t type;
	uint64_t config;
} counters[SPAWN_PERF_MAX] = {
    {PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
};

int perf_open_counter(int index, pid_t pid, bool user_only)
{
	struct perf_event_attr attr;

	if (index < 0 || index >= SPAWN_PERF_MAX) {
		errno = EINVAL;
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = counters[index].type;
	attr.config = counters[index].config;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.disabled = 1;
	attr.inherit = 1;
	attr.enable_on_exec = 1;
	/* For task-clock it filters samples, not the count, which stays the task's time. */
	attr.exclude_kernel = user_only;
	attr.exclude_hv = user_only;
	return (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

int perf_read_counter(int fd, struct perf_reading *r)
{
	ssize_t n;

	do
		n = read(fd, r, sizeof(*r));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*r) ? 0 : -1;
}
