#include "collect/perf_counters.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/common.h"

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} counters[PERF_COUNTER_MAX] = {
    [PERF_TASK_CLOCK] = {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    [PERF_INSTRUCTIONS] = {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    [PERF_CYCLES] = {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    [PERF_CACHE_MISSES] = {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    [PERF_BRANCH_MISSES] = {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
};

/*
 * What the kernel allows, probed once per process: it depends on the PMU, the kernel and
 * perf_event_paranoid, none of which change while revperf runs.
 */
static struct {
	bool done;
	bool supported[PERF_COUNTER_MAX];
	bool user_only[PERF_COUNTER_MAX];
} probe;

/* The layout of read() with TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING and no GROUP. */
struct perf_reading {
	uint64_t value;
	uint64_t time_enabled;
	uint64_t time_running;
};

const char *perf_counter_name(enum perf_counter c)
{
	if ((unsigned)c >= PERF_COUNTER_MAX)
		return "unknown";
	return counters[c].name;
}

static int open_counter(enum perf_counter c, pid_t pid, bool user_only)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = counters[c].type;
	attr.config = counters[c].config;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.disabled = 1;
	attr.inherit = 1;
	attr.enable_on_exec = 1;
	/*
	 * Only when perf_event_paranoid demands it: it makes hardware counts user-space only.
	 * (For task-clock it filters samples, not the count, which stays the task's time.)
	 */
	attr.exclude_kernel = user_only;
	attr.exclude_hv = user_only;
	return (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void probe_once(void)
{
	if (probe.done)
		return;
	for (int c = 0; c < PERF_COUNTER_MAX; c++) {
		/* On ourselves: a child has the same credentials, so the same rights. */
		int fd = open_counter(c, 0, false);

		if (fd < 0 && (errno == EACCES || errno == EPERM)) {
			fd = open_counter(c, 0, true);
			probe.user_only[c] = fd >= 0;
		}
		probe.supported[c] = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	probe.done = true;
}

void proc_perf_probe(bool supported[PERF_COUNTER_MAX])
{
	probe_once();
	memcpy(supported, probe.supported, sizeof(probe.supported));
}

bool proc_perf_user_only(enum perf_counter c)
{
	probe_once();
	return (unsigned)c < PERF_COUNTER_MAX && probe.supported[c] && probe.user_only[c];
}

void perf_set_init(struct perf_set *ps)
{
	for (int c = 0; c < PERF_COUNTER_MAX; c++)
		ps->fd[c] = -1;
}

void perf_set_open(struct perf_set *ps, pid_t pid)
{
	probe_once();
	for (int c = 0; c < PERF_COUNTER_MAX; c++)
		if (probe.supported[c])
			ps->fd[c] = open_counter(c, pid, probe.user_only[c]);
}

void perf_set_read(const struct perf_set *ps, struct proc_metrics *m)
{
	for (int c = 0; c < PERF_COUNTER_MAX; c++) {
		struct perf_reading r;
		ssize_t n;

		m->perf_supported[c] = false;
		m->perf_value[c] = NAN;
		if (ps->fd[c] < 0)
			continue;
		do
			n = read(ps->fd[c], &r, sizeof(r));
		while (n < 0 && errno == EINTR);
		/* Never scheduled on a PMU (time_running 0): no count at all, not a zero. */
		if (n != (ssize_t)sizeof(r) || r.time_running == 0)
			continue;
		m->perf_supported[c] = true;
		m->perf_value[c] = (double)r.value;
		if (r.time_running < r.time_enabled)
			m->perf_value[c] *= (double)r.time_enabled / (double)r.time_running;
	}
}

void perf_set_close(struct perf_set *ps)
{
	for (int c = 0; c < PERF_COUNTER_MAX; c++) {
		if (ps->fd[c] >= 0)
			close(ps->fd[c]);
		ps->fd[c] = -1;
	}
}
