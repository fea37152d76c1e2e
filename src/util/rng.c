#include "util/rng.h"

#include <time.h>
#include <unistd.h>

void rng_seed(struct rng *r, uint64_t seed)
{
	r->state = seed ? seed : 0x9E3779B97F4A7C15ULL;
}

uint64_t rng_next(struct rng *r)
{
	uint64_t x = r->state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

uint32_t rng_below(struct rng *r, uint32_t n)
{
	uint64_t prod = (rng_next(r) >> 32) * (uint64_t)n;
	uint32_t low = (uint32_t)prod;

	if (low < n) {
		uint32_t reject = (0u - n) % n; /* 2^32 mod n */
		while (low < reject) {
			prod = (rng_next(r) >> 32) * (uint64_t)n;
			low = (uint32_t)prod;
		}
	}
	return (uint32_t)(prod >> 32);
}

int rng_coin(struct rng *r)
{
	return (int)(rng_next(r) >> 63);
}

uint64_t rng_fresh_seed(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	/* Only 53 bits, so that the seed survives a round trip through JSON numbers. */
	return (((uint64_t)ts.tv_sec * 1000000007ULL) ^ (uint64_t)ts.tv_nsec ^
		((uint64_t)getpid() << 32)) & ((1ULL << 53) - 1);
}
