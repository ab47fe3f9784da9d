/* The streaming 64-bit name hash behind cf_casefold_hash and cf_name_hash.
 * Bytes are gathered into 64-bit words, each word is mixed into the state,
 * and the length is folded in at the end, so the result depends only on the
 * byte sequence, never on how it was produced. */
#ifndef CF_HASH_H
#define CF_HASH_H

#include <stddef.h>
#include <stdint.h>

struct cf_hasher {
	uint64_t h;     /* state */
	uint64_t word;  /* bytes not yet mixed, little-endian */
	unsigned nword; /* how many */
	uint64_t total; /* bytes hashed */
};

static inline uint64_t cf_hash_mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dull;
	return x ^ (x >> 33);
}

static inline void cf_hash_init(struct cf_hasher *hs)
{
	hs->h = 0x243f6a8885a308d3ull;
	hs->word = 0;
	hs->nword = 0;
	hs->total = 0;
}

static inline void cf_hash_byte(struct cf_hasher *hs, unsigned char b)
{
	hs->word |= (uint64_t)b << (8 * hs->nword);
	hs->total++;
	if (++hs->nword == 8) {
		hs->h = cf_hash_mix(hs->h ^ hs->word) + 0x9e3779b97f4a7c15ull;
		hs->word = 0;
		hs->nword = 0;
	}
}

/* Whole words go straight in when the state is word-aligned. */
static inline void cf_hash_bytes(struct cf_hasher *hs, const unsigned char *p, size_t n)
{
	while (n && hs->nword) {
		cf_hash_byte(hs, *p++);
		n--;
	}
	for (; n >= 8; n -= 8, p += 8) {
		uint64_t w = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
			     (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
			     (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
		hs->h = cf_hash_mix(hs->h ^ w) + 0x9e3779b97f4a7c15ull;
		hs->total += 8;
	}
	while (n--)
		cf_hash_byte(hs, *p++);
}

static inline uint64_t cf_hash_final(const struct cf_hasher *hs)
{
	return cf_hash_mix(hs->h ^ hs->word ^ (hs->total << 56) ^ hs->total);
}

#endif
