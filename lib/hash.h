/*
 * The streaming name hash behind cf_casefold_hash and cf_name_hash:
 * SipHash-2-4 (Aumasson and Bernstein) with a 128-bit key, fed a byte at a
 * time or a word at a time, so the result depends only on the byte sequence,
 * never on how the producer cut it into pieces.  With a secret key, names
 * cannot be chosen to collide (the daemon keys its directory index per mount).
 */
#ifndef CF_HASH_H
#define CF_HASH_H

#include <stddef.h>
#include <stdint.h>

struct cf_hasher {
	uint64_t v0, v1, v2, v3;
	uint64_t word;  /* bytes not yet absorbed, little-endian */
	unsigned nword; /* how many */
	uint64_t total; /* bytes hashed */
};

#define CF_ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static inline void cf_sip_round(struct cf_hasher *h)
{
	h->v0 += h->v1;
	h->v1 = CF_ROTL(h->v1, 13);
	h->v1 ^= h->v0;
	h->v0 = CF_ROTL(h->v0, 32);
	h->v2 += h->v3;
	h->v3 = CF_ROTL(h->v3, 16);
	h->v3 ^= h->v2;
	h->v0 += h->v3;
	h->v3 = CF_ROTL(h->v3, 21);
	h->v3 ^= h->v0;
	h->v2 += h->v1;
	h->v1 = CF_ROTL(h->v1, 17);
	h->v1 ^= h->v2;
	h->v2 = CF_ROTL(h->v2, 32);
}

static inline void cf_hash_init(struct cf_hasher *h, const uint64_t key[2])
{
	h->v0 = key[0] ^ 0x736f6d6570736575ull;
	h->v1 = key[1] ^ 0x646f72616e646f6dull;
	h->v2 = key[0] ^ 0x6c7967656e657261ull;
	h->v3 = key[1] ^ 0x7465646279746573ull;
	h->word = 0;
	h->nword = 0;
	h->total = 0;
}

static inline void cf_hash_word(struct cf_hasher *h, uint64_t m)
{
	h->v3 ^= m;
	cf_sip_round(h);
	cf_sip_round(h);
	h->v0 ^= m;
}

static inline void cf_hash_byte(struct cf_hasher *h, unsigned char b)
{
	h->word |= (uint64_t)b << (8 * h->nword);
	h->total++;
	if (++h->nword == 8) {
		cf_hash_word(h, h->word);
		h->word = 0;
		h->nword = 0;
	}
}

/* Whole words go straight in when the state is word-aligned. */
static inline void cf_hash_bytes(struct cf_hasher *h, const unsigned char *p, size_t n)
{
	while (n && h->nword) {
		cf_hash_byte(h, *p++);
		n--;
	}
	for (; n >= 8; n -= 8, p += 8) {
		uint64_t w = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
			     (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
			     (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
		cf_hash_word(h, w);
		h->total += 8;
	}
	while (n--)
		cf_hash_byte(h, *p++);
}

static inline uint64_t cf_hash_final(struct cf_hasher *h)
{
	cf_hash_word(h, h->word | h->total << 56);
	h->v2 ^= 0xff;
	cf_sip_round(h);
	cf_sip_round(h);
	cf_sip_round(h);
	cf_sip_round(h);
	return h->v0 ^ h->v1 ^ h->v2 ^ h->v3;
}

#endif
