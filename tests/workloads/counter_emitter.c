/*
 * The workload of the sampler's tests (tests/unit/test_sampler.c):
 *
 *   counter_emitter run FILE      the scenario below; its output is the same at every run
 *   counter_emitter kids N MS     N children one after the other, each writing 1 MiB to
 *                                 /dev/null, then burning MS ms of CPU, each waited for
 *                                 (short-lived processes between samples)
 *   counter_emitter threads N MS  N threads that sleep 1 ms in a loop (voluntary context
 *                                 switches) for MS ms
 *
 * The scenario ("run"), with "revperf-counter phase P" lines marking its phases:
 *   phase 1, burn (~0.6 s): a forked child burns CPU; the parent burns CPU too, printing
 *     "revperf-counter requests N" (N = 10, 20, ...) every ~50 ms and growing its RSS by
 *     8 MiB at every other line, plus ordinary output and malformed revperf-counter lines
 *     on stdout and stderr, a line split across two writes 60 ms apart, and lines longer
 *     than 4096 bytes;
 *   phase 2, write (~0.4 s): 40 chunks of 64 KiB written to FILE, 10 ms apart, still
 *     printing the requests lines;
 *   phase 3: the child is done (it prints its last line only now, so that the output's
 *     order does not depend on timing); the output ends with "revperf-counter final 7"
 *     without a newline.
 * stdout is line-buffered and stderr unbuffered, so that lines leave as they are printed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024 * 1024)

static volatile unsigned long sink;

static double now_s(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Busy until s seconds of the clock passed. */
static void burn(clockid_t clock, double s)
{
	double end = now_s(clock) + s;

	while (now_s(clock) < end)
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			exit(3);
		buf += n;
		len -= (size_t)n;
	}
}

static void long_line(FILE *f, const char *start, size_t len)
{
	fputs(start, f);
	for (size_t i = strlen(start); i < len; i++)
		fputc('x', f);
	fputc('\n', f);
}

static const char *const malformed[] = {
    "revperf-counter requests",	   /* no value */
    "revperf-counter requests ",   /* empty value */
    "revperf-counter bad!name 3",  /* a character outside the name set */
    "revperf-counter x nan",	   /* not finite */
    "revperf-counter y 1e999",	   /* overflows to inf */
    "revperf-counter z 12abc",	   /* trailing garbage */
    "revperf-counter cpu_user 1",  /* a sampler counter's name */
    "revperf-counter  requests 5", /* two spaces: empty name */
};

/* Phase 1: burning in both processes, the counter lines and the other output. */
static void phase_burn(int *requests, char **mem, size_t *nmem)
{
	for (int i = 0; i < 12; i++) {
		burn(CLOCK_MONOTONIC, 0.05);
		*requests += 10;
		printf("revperf-counter requests %d\n", *requests);
		if (i % 2 == 0 && *nmem < 6) {
			mem[*nmem] = malloc(8 * MIB);
			if (!mem[*nmem])
				exit(2);
			memset(mem[*nmem], i + 1, 8 * MIB);
			(*nmem)++;
		}
		if (i < (int)(sizeof(malformed) / sizeof(malformed[0])))
			fprintf(i % 2 ? stderr : stdout, "%s\n", malformed[i]);
		printf("ordinary line %d: revperf-counter requests 99999 (not at the start)\n", i);
		if (i == 3) {
			fprintf(stderr, "revperf-counter requ");
			sleep_ms(60);
			fprintf(stderr, "ests %d.5\n", *requests);
		}
		if (i == 5) {
			/* Too long to parse: neither is a counter, the first is malformed. */
			long_line(stdout, "revperf-counter requests 1 ", 5000);
			long_line(stderr, "plain ", 9000);
		}
	}
}

/* Phase 2: the file written in chunks, requests still counted. */
static void phase_write(const char *path, int *requests)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	char *chunk = malloc(64 * 1024);

	if (fd < 0 || !chunk) {
		perror(path);
		exit(2);
	}
	memset(chunk, 'w', 64 * 1024);
	for (int i = 0; i < 40; i++) {
		write_all(fd, chunk, 64 * 1024);
		fdatasync(fd);
		sleep_ms(10);
		if (i % 5 == 4) {
			*requests += 10;
			printf("revperf-counter requests %d\n", *requests);
		}
	}
	close(fd);
	free(chunk);
}

static int scenario(const char *path)
{
	char *mem[6];
	size_t nmem = 0;
	int requests = 0, go[2], status;
	pid_t child;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe(go) < 0)
		return 2;
	printf("counter_emitter starts\n");
	printf("revperf-counter phase 1\n");
	fflush(stdout);
	child = fork();
	if (child < 0)
		return 2;
	if (child == 0) {
		char c;

		close(go[1]);
		burn(CLOCK_PROCESS_CPUTIME_ID, 0.5);
		/* Its line comes after the parent's phase 1, whatever the timing. */
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		fprintf(stderr, "child done\n");
		_exit(0);
	}
	close(go[0]);
	phase_burn(&requests, mem, &nmem);
	close(go[1]);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
		return 3;
	printf("revperf-counter phase 2\n");
	phase_write(path, &requests);
	printf("revperf-counter phase 3\n");
	for (size_t i = 0; i < nmem; i++)
		free(mem[i]);
	printf("done after %d requests\n", requests);
	printf("revperf-counter final 7");
	return 0;
}

/* Short-lived children, each waited for: they die between samples. */
static int kids(int n, long ms)
{
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		int status;

		if (pid < 0)
			return 2;
		if (pid == 0) {
			static char chunk[64 * 1024];
			int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

			if (fd < 0)
				_exit(2);
			for (int c = 0; c < 16; c++)
				write_all(fd, chunk, sizeof(chunk));
			burn(CLOCK_PROCESS_CPUTIME_ID, (double)ms / 1000);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) != pid)
			return 3;
	}
	return 0;
}

static double thread_end;

static void *sleeper(void *arg)
{
	(void)arg;
	while (now_s(CLOCK_MONOTONIC) < thread_end)
		sleep_ms(1);
	return NULL;
}

/* Threads that switch often; the main thread only waits for them. */
static int threads(int n, long ms)
{
	pthread_t t[64];

	if (n < 1 || n > 64)
		return 2;
	thread_end = now_s(CLOCK_MONOTONIC) + (double)ms / 1000;
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, sleeper, NULL))
			return 2;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "run"))
		return scenario(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "kids"))
		return kids((int)strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "threads"))
		return threads((int)strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10));
	fprintf(stderr, "usage: counter_emitter run FILE | kids N MS | threads N MS\n");
	return 2;
}
