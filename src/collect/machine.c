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
	const char *name;
	long cores;

	memset(m, 0, sizeof(*m));
	name = getenv("REVPERF_MACHINE");
	if (uname(&u) == 0) {
		snprintf(m->hostname, sizeof(m->hostname), "%s", u.nodename);
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
	} else {
		snprintf(m->hostname, sizeof(m->hostname), "unknown");
		snprintf(m->kernel, sizeof(m->kernel), "unknown");
	}
	if (name && *name)
		snprintf(m->hostname, sizeof(m->hostname), "%s", name);
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

/* The first number of /proc/loadavg's text in buf, or -1. */
static double parse_loadavg1(const char *buf)
{
	char *end;
	double load;

	errno = 0;
	load = strtod(buf, &end);
	if (end == buf || errno || load < 0)
		return -1;
	return load;
}

double machine_loadavg1(void)
{
	char buf[128];

	if (read_small_file("/proc/loadavg", buf, sizeof(buf)) <= 0)
		return -1;
	return parse_loadavg1(buf);
}

int machine_loadavg_open(void)
{
	return open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
}

double machine_loadavg1_fd(int fd)
{
	char buf[128];
	ssize_t n;

	if (fd < 0)
		return machine_loadavg1();
	/* At offset 0 the kernel makes the text anew (seq_file): the load of now. */
	do
		n = pread(fd, buf, sizeof(buf) - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return parse_loadavg1(buf);
}

void machine_boot_id(char *out, size_t size)
{
	char buf[64];

	out[0] = '\0';
	if (read_small_file("/proc/sys/kernel/random/boot_id", buf, sizeof(buf)) > 0)
		copy_trimmed(out, size, buf, strlen(buf));
}

int64_t machine_process_start(pid_t pid)
{
	char path[64], buf[1024], *p, *end;
	long long ticks;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (pid <= 0 || read_small_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	/* The command name (field 2) may hold spaces and parentheses: count after its end. */
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	for (field = 2; field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -1;
	}
	errno = 0;
	ticks = strtoll(p + 1, &end, 10);
	if (end == p + 1 || errno || ticks < 0)
		return -1;
	return (int64_t)ticks;
}

void machine_process_command(pid_t pid, char *out, size_t size)
{
	char path[64], buf[256];
	ssize_t n;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	n = pid > 0 ? read_small_file(path, buf, sizeof(buf)) : -1;
	/* The arguments are NUL-separated: spaces between them, and nothing unprintable. */
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
		else if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			buf[i] = '?';
	if (n > 0) {
		copy_trimmed(out, size, buf, (size_t)n);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (pid > 0 && read_small_file(path, buf, sizeof(buf)) > 0)
		copy_trimmed(out, size, buf, strlen(buf));
}
