/*
 * Two-version workload of bench/sample.sh: eight functions f0..f7 with the same work each
 * (about 12% of the program's time), called through two stages (main -> stage_a -> f0..f3,
 * main -> stage_b -> f4..f7), so that no function dominates the profile. VERSION 2
 * (-DVERSION=2) doubles f5's work: its share goes from 12.5% to 22%, each other's falls by
 * 1.4 points, the program takes 12.5% more CPU time. Built at -O2 without frame pointers,
 * its stacks need the DWARF unwinder.
 * Usage: sample_versions UNITS (a unit: about 1 ms of CPU time per function).
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef VERSION
#define VERSION 1
#endif
#define KEEP __attribute__((noinline, noipa))

static volatile double sink;

KEEP double work(long n, double k);
double work(long n, double k)
{
	double s = 0;
	for (long i = 0; i < n; i++)
		s += (double)(i & 15) * k;
	return s;
}

#define FN(name, k, times)                                                                         \
	KEEP double name(long n);                                                                  \
	double name(long n)                                                                        \
	{                                                                                          \
		return work(n * (times), k) + 1;                                                   \
	}
FN(f0, 0.1, 1)
FN(f1, 0.2, 1)
FN(f2, 0.3, 1)
FN(f3, 0.4, 1)
FN(f4, 0.5, 1)
FN(f5, 0.6, VERSION == 2 ? 2 : 1)
FN(f6, 0.7, 1)
FN(f7, 0.8, 1)

KEEP double stage_a(long n);
KEEP double stage_b(long n);
double stage_a(long n)
{
	return f0(n) + f1(n) + f2(n) + f3(n) + 1;
}
double stage_b(long n)
{
	return f4(n) + f5(n) + f6(n) + f7(n) + 1;
}

int main(int argc, char **argv)
{
	long units = argc > 1 ? atol(argv[1]) : 100;
	for (long u = 0; u < units; u++)
		sink = stage_a(1000000) + stage_b(1000000);
	printf("%f\n", sink);
	return 0;
}
