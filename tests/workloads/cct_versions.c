/* Two versions of one program for the CCT differencing tests (tests/cli/cct_diff_*.sh),
 * built with -DVERSION=1 or 2, at -O0 and -O2, with -finstrument-functions. From 1 to 2:
 * - slow_me does eight times the work (a function made slower: first in the weight diff);
 * - caller_x calls a new function, helper_new (stage 1, attributed to caller_x);
 * - mod_fn now calls existing_fn, which both versions have (stage 2, mod_fn attributed);
 * - steady and existing_fn (at its old call site) are unchanged.
 * Every function is kept out of line so that the tree is the same at every level. */
#include <stdlib.h>

#if defined(__clang__)
#define KEEP __attribute__((noinline, optnone))
#else
#define KEEP __attribute__((noinline, noipa))
#endif

#ifndef VERSION
#define VERSION 1
#endif

static volatile unsigned long sink;

static void spin(unsigned long n) __attribute__((no_instrument_function));
static void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

KEEP void slow_me(void)
{
	spin(VERSION == 2 ? 160000 : 20000);
}

KEEP void steady(void)
{
	spin(20000);
}

#if VERSION == 2
KEEP void helper_new(void)
{
	spin(5000);
}
#endif

KEEP void caller_x(void)
{
	spin(5000);
#if VERSION == 2
	helper_new();
#endif
}

KEEP void existing_fn(void)
{
	spin(5000);
}

KEEP void mod_fn(void)
{
	spin(5000);
#if VERSION == 2
	existing_fn();
#endif
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 200;
	for (long r = 0; r < rounds; r++) {
		slow_me();
		steady();
		caller_x();
		mod_fn();
		existing_fn();
	}
	return 0;
}
