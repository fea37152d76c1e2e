/*
 * Two versions of one program for the perf script import (tests/cli/diff_perf_script.sh,
 * tests/data/perf/): main -> compute -> both (inlined) -> hot and steady, and a thread named
 * "worker" running steady. -DSLOW=4 makes hot do four times the work, nothing else changes.
 * Usage: perf_versions [N] (default 20,000,000 iterations of each loop).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>

#ifndef SLOW
#define SLOW 1
#endif

static volatile double sink;

__attribute__((noinline)) static double hot(long n)
{
	double s = 0;
	for (long i = 0; i < n * SLOW; i++)
		s += (double)i * 0.5;
	return s;
}

__attribute__((noinline)) static double steady(long n)
{
	double s = 1;
	for (long i = 0; i < n; i++)
		s = s * 1.0000001 + 1e-9;
	return s;
}

static inline double both(long n)
{
	return hot(n) + steady(n);
}

__attribute__((noinline)) static double compute(long n)
{
	return both(n);
}

static void *worker(void *arg)
{
	sink = steady(*(const long *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000000;
	pthread_t t;

	if (pthread_create(&t, NULL, worker, &n))
		return 1;
	pthread_setname_np(t, "worker");
	sink = compute(n);
	pthread_join(t, NULL);
	return 0;
}
