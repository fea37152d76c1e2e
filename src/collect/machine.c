#include "collect/machine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "util/common.h"

/* The first CPU's block of /proc/cpuinfo fits easily; later CPUs only repeat it. */
#define CPUINFO_READ_MAX 16384

/*
 * Keys naming the CPU model, best first: x86 and most others have "model name"; older ARM
 * kernels "Processor", MIPS "cpu model", POWER "cpu", Raspberry Pi boards "Model".
 */
static const char *const model_keys[] = {"model name", "Processor", "cpu model", "cpu", "Model"};

/* Reads at most size - 1 bytes of a small file into buf; returns the length or -1. */
static ssize_t read_small_file(const char *path, char *buf, size_t size)
{
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (got < size - 1) {
		ssize_t n = read(fd, buf + got, size - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return (ssize_t)got;
}

/* Copies s[0..len) into out without leading and trailing blanks. */
static void copy_trimmed(char *out, size_t out_size, const char *s, size_t len)
{
	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len && strchr(" \t\r\n", s[len - 1]))
		len--;
	snprintf(out, out_size, "%.*s", (int)len, s);
}

void machine_cpu_model_parse(const char *cpuinfo, char *out, size_t out_size)
{
	size_t best = ARRAY_SIZE(model_keys);
	const char *line = cpuinfo;

	snprintf(out, out_size, "unknown");
	while (*line && best > 0) {
		const char *eol = strchr(line, '\n');
		const char *colon;
		size_t len = eol ? (size_t)(eol - line) : strlen(line);

		colon = memchr(line, ':', len);
		if (colon) {
			char key[32];

			copy_trimmed(key, sizeof(key), line, (size_t)(colon - line));
			for (size_t k = 0; k < best; k++) {
				char value[160];

				if (strcmp(key, model_keys[k]))
					continue;
				copy_trimmed(value, sizeof(value), colon + 1,
					     len - (size_t)(colon + 1 - line));
				if (value[0]) {
					snprintf(out, out_size, "%s", value);
					best = k;
				}
				break;
			}
		}
		if (!eol)
			break;
		line = eol + 1;
	}
}

void machine_info_read(struct machine_info *m)
{
	char buf[CPUINFO_READ_MAX];
	struct utsname u;
	long cores;

	memset(m, 0, sizeof(*m));
	if (uname(&u) == 0) {
		snprintf(m->hostname, sizeof(m->hostname), "%s", u.nodename);
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
	} else {
		snprintf(m->hostname, sizeof(m->hostname), "unknown");
		snprintf(m->kernel, sizeof(m->kernel), "unknown");
	}
	if (read_small_file("/proc/cpuinfo", buf, sizeof(buf)) > 0)
		machine_cpu_model_parse(buf, m->cpu_model, sizeof(m->cpu_model));
	else
		snprintf(m->cpu_model, sizeof(m->cpu_model), "unknown");
	cores = sysconf(_SC_NPROCESSORS_ONLN);
	m->cores = cores > 0 ? (int)cores : 1;
	if (read_small_file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", buf,
			    sizeof(buf)) > 0)
		copy_trimmed(m->governor, sizeof(m->governor), buf, strlen(buf));
	if (!m->governor[0])
		snprintf(m->governor, sizeof(m->governor), "unknown");
}

double machine_loadavg1(void)
{
	char buf[128], *end;
	double load;

	if (read_small_file("/proc/loadavg", buf, sizeof(buf)) <= 0)
		return -1;
	errno = 0;
	load = strtod(buf, &end);
	if (end == buf || errno || load < 0)
		return -1;
	return load;
}
