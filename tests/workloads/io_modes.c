/*
 * Workloads of the I/O tracer's tests (tests/unit/test_iotrace.c), one per mode:
 *
 *   io_modes direct FILE N SIZE   N write()s of SIZE bytes from direct_writer()
 *   io_modes stdio FILE N         N fprintf("line %06d\n") + fflush from stdio_writer()
 *   io_modes two FILE1 FILE2 N    N writes of 7 bytes to each file, one call site
 *   io_modes threads FILE N       two threads: thread_a_writer 3 bytes, thread_b_writer 5,
 *                                 N times each
 *   io_modes fork FILE N          parent_writer 11 bytes and (in a child) child_writer 13,
 *                                 N times each; the child exits 3, the parent 0
 *   io_modes exec FILE N          re-execs itself as "direct FILE N 9"
 *   io_modes dlopen LIB FILE N    one write of 1 byte, then dlopen(LIB) and N times
 *                                 lib_writer() (tests/workloads/io_lib.c): 8 bytes each
 *   io_modes forks FILE N         forks N children at once, each writes 1 byte from
 *                                 child_writer() and exits; then reaps them all
 *   io_modes closed-stdout        closes fd 1, then writes 4 bytes to it (EBADF); exits 0
 *   io_modes sigpipe              writes to a pipe without reader (EPIPE, SIGPIPE kills)
 *   io_modes blocked-alarm        blocks in write() on a full pipe until SIGALRM kills it
 *   io_modes ignore-term          ignores SIGTERM, forks a child that does too, both sleep
 *   io_modes mt-exit N            N threads write to /dev/null in loops; main exit_group(5)s
 *
 * The writer functions are noinline and do work after their call so that no call becomes
 * a tail call: the test finds them on the stack at -O0 and -O2.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

static volatile long sink;

static int open_out(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);

	if (fd < 0) {
		perror(path);
		exit(2);
	}
	return fd;
}

NOINLINE static long direct_writer(int fd, long n, long size)
{
	char buf[4096];
	long total = 0;

	memset(buf, 'd', sizeof(buf));
	for (long i = 0; i < n; i++) {
		ssize_t w = write(fd, buf, (size_t)size);

		if (w > 0)
			total += w;
	}
	sink = total;
	return total;
}

NOINLINE static long stdio_writer(FILE *f, long n)
{
	long total = 0;

	for (long i = 0; i < n; i++) {
		total += fprintf(f, "line %06ld\n", i);
		fflush(f);
	}
	sink = total;
	return total;
}

NOINLINE static long two_file_writer(const int fds[2], long n)
{
	long total = 0;

	for (long i = 0; i < n; i++)
		for (int k = 0; k < 2; k++)
			total += write(fds[k], "abcdefg", 7);
	sink = total;
	return total;
}

struct thread_arg {
	int fd;
	long n;
};

NOINLINE static long thread_a_writer(int fd, long n)
{
	long total = 0;

	for (long i = 0; i < n; i++)
		total += write(fd, "aaa", 3);
	sink = total;
	return total;
}

NOINLINE static long thread_b_writer(int fd, long n)
{
	long total = 0;

	for (long i = 0; i < n; i++)
		total += write(fd, "bbbbb", 5);
	sink = total;
	return total;
}

static void *thread_a(void *p)
{
	struct thread_arg *a = p;

	thread_a_writer(a->fd, a->n);
	return NULL;
}

static void *thread_b(void *p)
{
	struct thread_arg *a = p;

	thread_b_writer(a->fd, a->n);
	return NULL;
}

NOINLINE static long parent_writer(int fd, long n)
{
	long total = 0;

	for (long i = 0; i < n; i++)
		total += write(fd, "parent-line", 11);
	sink = total;
	return total;
}

NOINLINE static long child_writer(int fd, long n)
{
	long total = 0;

	for (long i = 0; i < n; i++)
		total += write(fd, "child-line-xx", 13);
	sink = total;
	return total;
}

static int mode_fork(const char *path, long n)
{
	int fd = open_out(path), status;
	pid_t pid = fork();

	if (pid < 0)
		return 2;
	if (pid == 0) {
		child_writer(fd, n);
		_exit(3);
	}
	parent_writer(fd, n);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 3)
		return 4;
	return 0;
}

static int mode_forks(const char *path, long n)
{
	int fd = open_out(path), status, ret = 0;

	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 2;
		if (pid == 0) {
			child_writer(fd, 1);
			_exit(0);
		}
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			ret = 4;
	return ret;
}

static int mode_threads(const char *path, long n)
{
	struct thread_arg arg = {open_out(path), n};
	pthread_t a, b;

	if (pthread_create(&a, NULL, thread_a, &arg) || pthread_create(&b, NULL, thread_b, &arg))
		return 2;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}

static void *spin_writer(void *p)
{
	int fd = *(int *)p;

	for (;;)
		sink += write(fd, "x", 1);
	return NULL;
}

static int mode_mt_exit(long n)
{
	static int fd;
	pthread_t t;
	struct timespec ts = {0, 20 * 1000 * 1000};

	fd = open("/dev/null", O_WRONLY);
	for (long i = 0; i < n; i++)
		if (pthread_create(&t, NULL, spin_writer, &fd))
			return 2;
	nanosleep(&ts, NULL);
	exit(5); /* exit_group while the others are in (or stopped at) write() */
}

static int mode_dlopen(const char *lib, const char *path, long n)
{
	int fd = open_out(path);
	void *h;
	long (*fn)(int, long);

	direct_writer(fd, 1, 1); /* the tracer's view of the modules starts here */
	h = dlopen(lib, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 2;
	}
	*(void **)&fn = dlsym(h, "lib_writer");
	if (!fn)
		return 2;
	return fn(fd, n) == n * 8 + 1 ? 0 : 3;
}

static int mode_blocked_alarm(void)
{
	int p[2];
	char buf[4096];

	memset(buf, 'b', sizeof(buf));
	if (pipe(p) < 0)
		return 2;
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	while (write(p[1], buf, sizeof(buf)) > 0)
		;
	fcntl(p[1], F_SETFL, 0);
	alarm(1);
	write(p[1], buf, sizeof(buf)); /* blocks: SIGALRM's default action ends the process */
	return 3;
}

static int mode_ignore_term(void)
{
	signal(SIGTERM, SIG_IGN);
	if (fork() == 0)
		for (;;)
			pause();
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "direct") && argc == 5)
		return direct_writer(open_out(argv[2]), atol(argv[3]), atol(argv[4])) < 0;
	if (!strcmp(mode, "stdio") && argc == 4) {
		FILE *f = fopen(argv[2], "a");

		if (!f)
			return 2;
		stdio_writer(f, atol(argv[3]));
		return fclose(f) != 0;
	}
	if (!strcmp(mode, "two") && argc == 5) {
		int fds[2] = {open_out(argv[2]), open_out(argv[3])};

		two_file_writer(fds, atol(argv[4]));
		return 0;
	}
	if (!strcmp(mode, "threads") && argc == 4)
		return mode_threads(argv[2], atol(argv[3]));
	if (!strcmp(mode, "fork") && argc == 4)
		return mode_fork(argv[2], atol(argv[3]));
	if (!strcmp(mode, "forks") && argc == 4)
		return mode_forks(argv[2], atol(argv[3]));
	if (!strcmp(mode, "exec") && argc == 4) {
		char *args[] = {argv[0], (char *)"direct", argv[2], argv[3], (char *)"9", NULL};

		execv("/proc/self/exe", args);
		return 2;
	}
	if (!strcmp(mode, "dlopen") && argc == 5)
		return mode_dlopen(argv[2], argv[3], atol(argv[4]));
	if (!strcmp(mode, "closed-stdout")) {
		close(1);
		return write(1, "gone", 4) == -1 && errno == EBADF ? 0 : 1;
	}
	if (!strcmp(mode, "sigpipe")) {
		int p[2];

		if (pipe(p) < 0)
			return 2;
		close(p[0]);
		write(p[1], "nobody", 6);
		return 3;
	}
	if (!strcmp(mode, "blocked-alarm"))
		return mode_blocked_alarm();
	if (!strcmp(mode, "ignore-term"))
		return mode_ignore_term();
	if (!strcmp(mode, "mt-exit") && argc == 3)
		return mode_mt_exit(atol(argv[2]));
	fprintf(stderr, "io_modes: unknown mode or arguments\n");
	return 2;
}
