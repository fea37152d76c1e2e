#ifndef REVPERF_UTIL_RNG_H
#define REVPERF_UTIL_RNG_H

#include <stdint.h>

/* A small seeded PRNG (xorshift64*): reproducible run orders from a recorded seed. */
struct rng {
	uint64_t state;
};

/* Seeds r; seed 0 is remapped (xorshift needs a non-zero state). */
void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* A uniform integer in [0, n) for 1 <= n <= 2^32, without modulo bias (Lemire's multiply
 * and reject). */
uint32_t rng_below(struct rng *r, uint32_t n);
/* A uniformly random bit. */
int rng_coin(struct rng *r);
/* A seed from the clock and pid, for when the user gave none. */
uint64_t rng_fresh_seed(void);

#endif
