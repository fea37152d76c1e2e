/*
 * The sampling profiler's workload (tests/cli/profile_sample.sh, compare_profile_sample.sh):
 * heavy_leaf does three times the work of light_leaf, each called by its own caller
 * (run_heavy, run_light) that uses the result after the call, so that no tail call hides
 * the caller; run_light calls light_leaf through light_stage, a function always inlined (an
 * inlined frame in the middle of the stack, named from the DWARF: run_light;light_stage;
 * light_leaf). `sample_work MODE UNITS`, a unit being 2 million iterations:
 *   plain    both in the main thread
 *   threads  heavy in a second thread (thread_body), light in the main thread
 *   fork     heavy in a forked child (child_body), light in the parent
 *   exec     the program execs itself in plain mode (an exec'd program is followed)
 * VERSION 2 (-DVERSION=2) makes slow_me, called by run_light, SLOW_FACTOR times slower
 * (30 by default: 1.7 times the whole program's work; -DSLOW_FACTOR=N for a subtler
 * change): the two-version workload of compare_profile_sample.sh and bench/sample.sh.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef VERSION
#define VERSION 1
#endif
#ifndef SLOW_FACTOR
#define SLOW_FACTOR 30
#endif

static volatile double sink;

__attribute__((noinline)) double heavy_leaf(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)(i % 7) * 0.5;
	return s;
}

__attribute__((noinline)) double light_leaf(long n)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)(i % 5) * 0.25;
	return s;
}

__attribute__((noinline)) double slow_me(long n)
{
	double s = 0;
	for (long i = 0; i < n * (VERSION == 2 ? SLOW_FACTOR : 1); i++)
		s += (double)(i % 3) * 0.125;
	return s;
}

__attribute__((noinline)) double run_heavy(long units)
{
	double r = heavy_leaf(units * 6000000);
	return r * 0.5 + 1;
}

static inline __attribute__((always_inline)) double light_stage(long units)
{
	double r = light_leaf(units * 2000000);
	return r * 0.75;
}

__attribute__((noinline)) double run_light(long units)
{
	double r = light_stage(units) + slow_me(units * 200000);
	return r * 0.5 + 1;
}

static void *thread_body(void *arg)
{
	sink = run_heavy((long)arg);
	return NULL;
}

__attribute__((noinline)) static void child_body(long units)
{
	sink = run_heavy(units);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "plain";
	long units = argc > 2 ? atol(argv[2]) : 10;

	if (!strcmp(mode, "exec")) {
		execl("/proc/self/exe", argv[0], "plain", argc > 2 ? argv[2] : "10", (char *)NULL);
		perror("exec");
		return 1;
	}
	if (!strcmp(mode, "threads")) {
		pthread_t t;
		if (pthread_create(&t, NULL, thread_body, (void *)units))
			return 1;
		sink = run_light(units);
		pthread_join(t, NULL);
	} else if (!strcmp(mode, "fork")) {
		pid_t p = fork();
		if (p < 0)
			return 1;
		if (p == 0) {
			child_body(units);
			_exit(0);
		}
		sink = run_light(units);
		waitpid(p, NULL, 0);
	} else {
		sink = run_heavy(units);
		sink = run_light(units);
	}
	printf("done %s %ld\n", mode, units);
	return 0;
}
