/* What one clock read costs on this machine, for bench/cct_runtime.sh: the TSC (rdtsc)
 * back to back, in ns and in TSC ticks; clock_gettime(CLOCK_MONOTONIC), which the CCT
 * runtime falls back to and uftrace uses; and a short call with two rdtsc around it
 * against the same call alone, the pattern of the runtime's hooks.
 * Usage: clock_cost [N]  (N reads per measurement, default 10000000; median of 5). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#define REPS 5

static volatile uint64_t sink;

__attribute__((noinline, noipa)) static uint64_t work(uint64_t x)
{
	return x * 31 + 7;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v)
{
	qsort(v, REPS, sizeof *v, cmp_double);
	return v[REPS / 2];
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10000000;
	if (n < 1000)
		n = 1000;
	double mono[REPS], call[REPS];
	uint64_t s = 0;
	for (int r = 0; r < REPS; r++) {
		uint64_t t0 = mono_ns();
		for (long i = 0; i < n; i++)
			s += mono_ns();
		mono[r] = (double)(mono_ns() - t0) / (double)n;
		t0 = mono_ns();
		for (long i = 0; i < n; i++)
			s += work((uint64_t)i);
		call[r] = (double)(mono_ns() - t0) / (double)n;
	}
	printf("clock_gettime(CLOCK_MONOTONIC): %.1f ns per read\n", median(mono));
#if defined(__x86_64__)
	double tsc[REPS], ticks[REPS], call2[REPS];
	for (int r = 0; r < REPS; r++) {
		uint64_t t0 = mono_ns(), c0 = __rdtsc();
		for (long i = 0; i < n; i++)
			s += __rdtsc();
		uint64_t c1 = __rdtsc();
		tsc[r] = (double)(mono_ns() - t0) / (double)n;
		ticks[r] = (double)(c1 - c0) / (double)n;
		t0 = mono_ns();
		for (long i = 0; i < n; i++) {
			uint64_t a = __rdtsc();
			s += work((uint64_t)i);
			s += __rdtsc() - a;
		}
		call2[r] = (double)(mono_ns() - t0) / (double)n;
	}
	printf("rdtsc back to back: %.1f ns per read (%.1f TSC ticks)\n", median(tsc),
	       median(ticks));
	double c = median(call), c2 = median(call2);
	printf("a short call: %.1f ns; with rdtsc before and after: %.1f ns (+%.1f ns for the "
	       "two reads)\n",
	       c, c2, c2 - c);
#else
	printf("a short call: %.1f ns (no TSC on this architecture)\n", median(call));
#endif
	sink = s;
	return 0;
}
