/* Call-heavy workload for bench/cct_runtime.sh: tens of millions of short instrumented
 * calls with a small, fixed calling context tree (a leaf called from two sites, a nested
 * pair, a short recursion), so that the per-call cost of a runtime dominates.
 * Usage: calls N  (N iterations; prints the number of calls of instrumented functions,
 * main included, on stdout). */
#include <stdio.h>
#include <stdlib.h>

#define KEEP __attribute__((noinline, noipa))

static volatile long sink;

KEEP long leaf(long x);
KEEP long mix(long x);
KEEP long pair(long x);
KEEP long rec(int depth, long x);

long leaf(long x)
{
	return x * 3 + 1;
}
long mix(long x)
{
	return x ^ (x >> 3);
}

/* Three calls: pair, and leaf and mix under it. */
long pair(long x)
{
	return leaf(x) + mix(x);
}

/* depth + 1 calls of rec and one of leaf (a second call site of leaf). */
long rec(int depth, long x)
{
	return depth ? rec(depth - 1, x + 1) + 1 : leaf(x);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10000000;
	long s = 0;
	for (long i = 0; i < n; i++) {
		s += pair(i);
		s += leaf(i); /* the same function from a third site, a sibling of pair */
		if ((i & 7) == 0)
			s += rec(3, i);
	}
	sink = s;
	/* Per iteration: pair 3 + leaf 1; every 8th iteration rec(3) adds 5; main once. */
	printf("%ld\n", 4 * n + 5 * ((n + 7) / 8) + 1);
	return 0;
}
