/* The unit tests' random inputs: xorshift64, the same sequence on every
 * machine and run, from the seed the test defines (RND_SEED) before
 * including this header. */
#ifndef CF_TEST_RND_H
#define CF_TEST_RND_H

#include <stdint.h>

static uint64_t rng = RND_SEED;

/* rnd(n): the next number below n (n > 0). */
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

#endif
