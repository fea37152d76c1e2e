/* CPU pinning and the wait for a quiet machine (collect/cpu_quiet.h). */
#include "collect/cpu_quiet.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect/proc.h"

static void set_bit(struct cpu_pin *p, unsigned cpu)
{
	p->cpus[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
}

static bool has_bit(const struct cpu_pin *p, unsigned cpu)
{
	return p->cpus[cpu / 8] & (1u << (cpu % 8));
}

static int parse_cpu(const char **s, unsigned *out)
{
	char *end;
	unsigned long v;
	if (**s < '0' || **s > '9')
		return -1;
	errno = 0;
	v = strtoul(*s, &end, 10);
	if (errno || v >= CPU_PIN_MAX)
		return -1;
	*out = (unsigned)v;
	*s = end;
	return 0;
}

int cpu_pin_parse(const char *s, struct cpu_pin *out)
{
	memset(out, 0, sizeof(*out));
	if (!strcmp(s, "off"))
		return 0;
	if (!strcmp(s, "auto")) {
		out->mode = CPU_PIN_AUTO;
		return 0;
	}
	out->mode = CPU_PIN_LIST;
	for (;;) {
		unsigned lo, hi;
		if (parse_cpu(&s, &lo))
			return -1;
		hi = lo;
		if (*s == '-') {
			s++;
			if (parse_cpu(&s, &hi) || hi < lo)
				return -1;
		}
		for (unsigned c = lo; c <= hi; c++)
			set_bit(out, c);
		if (!*s)
			return 0;
		if (*s++ != ',')
			return -1;
	}
}

/* "2-3,5" for the set. */
static void describe(const cpu_set_t *set, char *desc, size_t size)
{
	size_t len = 0;
	desc[0] = '\0';
	for (unsigned c = 0; c < CPU_PIN_MAX && len + 16 < size; c++) {
		unsigned end = c;
		if (!CPU_ISSET(c, set))
			continue;
		while (end + 1 < CPU_PIN_MAX && CPU_ISSET(end + 1, set))
			end++;
		len += (size_t)snprintf(desc + len, size - len, "%s%u", len ? "," : "", c);
		if (end > c)
			len += (size_t)snprintf(desc + len, size - len, "-%u", end);
		c = end;
	}
}

int cpu_pin_apply(const struct cpu_pin *p, char *desc, size_t desc_size)
{
	cpu_set_t set, allowed;
	desc[0] = '\0';
	if (p->mode == CPU_PIN_OFF)
		return 0;
	CPU_ZERO(&set);
	if (p->mode == CPU_PIN_AUTO) {
		int last = -1;
		if (sched_getaffinity(0, sizeof(allowed), &allowed) || CPU_COUNT(&allowed) < 2)
			return 0;
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &allowed))
				last = c;
		CPU_SET(last, &set);
	} else {
		for (unsigned c = 0; c < CPU_PIN_MAX && c < CPU_SETSIZE; c++)
			if (has_bit(p, c))
				CPU_SET(c, &set);
	}
	describe(&set, desc, desc_size);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		error("cannot pin the benchmarks to CPU %s: %s; use CPUs that are online and "
		      "allowed (see `nproc` and /sys/devices/system/cpu/online), or pin = off",
		      desc, strerror(errno));
		desc[0] = '\0';
		return RP_EINPUT;
	}
	return 0;
}

_Static_assert(sizeof(((struct cpu_saved *)0)->set) >= sizeof(cpu_set_t), "cpu_saved.set");

void cpu_pin_save(struct cpu_saved *s)
{
	memset(s, 0, sizeof(*s));
	s->valid = !sched_getaffinity(0, sizeof(cpu_set_t), (cpu_set_t *)(void *)s->set);
}

void cpu_pin_hand_to_runs(const struct cpu_saved *before)
{
	cpu_set_t all, pinned, rest;
	if (!before->valid)
		return;
	memcpy(&all, before->set, sizeof(all)); /* the saved bytes are not aligned */
	if (sched_getaffinity(0, sizeof(pinned), &pinned) || CPU_EQUAL(&pinned, &all))
		return;
	proc_spawner_cpus(&pinned);
	CPU_ZERO(&rest);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all) && !CPU_ISSET(c, &pinned))
			CPU_SET(c, &rest);
	if (CPU_COUNT(&rest))
		sched_setaffinity(0, sizeof(rest), &rest);
}

void cpu_pin_restore(const struct cpu_saved *s)
{
	if (!s->valid)
		return;
	proc_spawner_cpus(NULL);
	sched_setaffinity(0, sizeof(cpu_set_t), (const cpu_set_t *)(const void *)s->set);
}

/* Busy and total jiffies over all CPUs from the first line of /proc/stat. */
static int read_stat(unsigned long long *busy, unsigned long long *total)
{
	char buf[512];
	unsigned long long v[10] = {0};
	ssize_t n;
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) < 4)
		return -1;
	*total = 0;
	for (int i = 0; i < 8; i++) /* guest time is already counted in user */
		*total += v[i];
	*busy = *total - v[3] - v[4]; /* idle, iowait */
	return 0;
}

double cpu_busy_fraction(ns_t interval_ns)
{
	unsigned long long b0, t0, b1, t1;
	struct timespec ts = {(time_t)(interval_ns / 1000000000), (long)(interval_ns % 1000000000)};
	if (read_stat(&b0, &t0))
		return -1;
	nanosleep(&ts, NULL);
	if (read_stat(&b1, &t1) || t1 <= t0)
		return -1;
	return (double)(b1 - b0) / (double)(t1 - t0);
}

ns_t cpu_wait_quiet(double threshold, ns_t max_wait_ns, bool *quiet)
{
	const ns_t step = 200 * 1000000LL;
	ns_t waited = 0;
	*quiet = false;
	while (!interrupt_requested()) {
		double busy = cpu_busy_fraction(step);
		if (busy < 0 || busy <= threshold) {
			*quiet = busy >= 0;
			break;
		}
		waited += step;
		if (waited >= max_wait_ns)
			break;
	}
	return waited;
}
