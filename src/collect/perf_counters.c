#include "collect/perf_counters.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "collect/perf_open.h"
#include "collect/spawn_protocol.h"
#include "util/common.h"

_Static_assert(PERF_COUNTER_MAX == SPAWN_PERF_MAX,
	       "enum perf_counter and the spawner's counters must agree");

static const char *const counter_names[PERF_COUNTER_MAX] = {
    [PERF_TASK_CLOCK] = "task-clock",
    [PERF_INSTRUCTIONS] = "instructions",
    [PERF_CYCLES] = "cycles",
    [PERF_CACHE_MISSES] = "cache-misses",
    [PERF_BRANCH_MISSES] = "branch-misses",
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

const char *perf_counter_name(enum perf_counter c)
{
	if ((unsigned)c >= PERF_COUNTER_MAX)
		return "unknown";
	return counter_names[c];
}

static void probe_once(void)
{
	if (probe.done)
		return;
	for (int c = 0; c < PERF_COUNTER_MAX; c++) {
		/* On ourselves: the spawner and its children have the same credentials. */
		int fd = perf_open_counter(c, 0, false);

		if (fd < 0 && (errno == EACCES || errno == EPERM)) {
			fd = perf_open_counter(c, 0, true);
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

void perf_counters_request(uint32_t *mask, uint32_t *user_only)
{
	probe_once();
	*mask = 0;
	*user_only = 0;
	for (int c = 0; c < PERF_COUNTER_MAX; c++) {
		if (probe.supported[c])
			*mask |= 1u << c;
		if (probe.supported[c] && probe.user_only[c])
			*user_only |= 1u << c;
	}
}

void perf_counters_fill(uint32_t read, const uint64_t perf[][3], struct proc_metrics *m)
{
	for (int c = 0; c < PERF_COUNTER_MAX; c++) {
		const uint64_t *r = perf[c];

		m->perf_supported[c] = false;
		m->perf_value[c] = NAN;
		/* Never scheduled on a PMU (time_running 0): no count at all, not a zero. */
		if (!(read & (1u << c)) || r[2] == 0)
			continue;
		m->perf_supported[c] = true;
		m->perf_value[c] = (double)r[0];
		if (r[2] < r[1])
			m->perf_value[c] *= (double)r[1] / (double)r[2];
	}
}
