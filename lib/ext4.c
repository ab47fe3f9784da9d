/* ext4's directory hashes and encoding magic (see include/casefold_ext4.h).
 * The hash functions are reimplemented from their published definitions:
 * half MD4 and TEA as used by ext3/ext4 htree, and the legacy dx_hack_hash. */
#include <errno.h>
#include <string.h>

#include "casefold_ext4.h"
#include "encoding.h"

#define EOF_HASH_32 0x7fffffffu /* reserved for end-of-directory */

static uint32_t rol(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

static uint32_t legacy(const char *name, size_t len, int is_signed)
{
	uint32_t h0 = 0x12a3fe2d, h1 = 0x37abe8f9;

	for (size_t i = 0; i < len; i++) {
		int c = is_signed ? (int)(signed char)name[i] : (int)(unsigned char)name[i];
		uint32_t h = h1 + (h0 ^ (uint32_t)(c * 7152373));

		if (h & 0x80000000u)
			h -= 0x7fffffff;
		h1 = h0;
		h0 = h;
	}
	return h0 << 1;
}

/* Pack up to num words from msg, padding with a word made of the length. */
static void str2hashbuf(const char *msg, size_t len, uint32_t *buf, int num, int is_signed)
{
	uint32_t pad = (uint32_t)len | ((uint32_t)len << 8), val;

	pad |= pad << 16;
	val = pad;
	if (len > (size_t)num * 4)
		len = (size_t)num * 4;
	for (size_t i = 0; i < len; i++) {
		int c = is_signed ? (int)(signed char)msg[i] : (int)(unsigned char)msg[i];
		val = (uint32_t)c + (val << 8);
		if (i % 4 == 3) {
			*buf++ = val;
			val = pad;
			num--;
		}
	}
	if (--num >= 0)
		*buf++ = val;
	while (--num >= 0)
		*buf++ = pad;
}

static void tea(uint32_t buf[4], const uint32_t in[4])
{
	uint32_t sum = 0, b0 = buf[0], b1 = buf[1];

	for (int n = 0; n < 16; n++) {
		sum += 0x9E3779B9u;
		b0 += ((b1 << 4) + in[0]) ^ (b1 + sum) ^ ((b1 >> 5) + in[1]);
		b1 += ((b0 << 4) + in[2]) ^ (b0 + sum) ^ ((b0 >> 5) + in[3]);
	}
	buf[0] += b0;
	buf[1] += b1;
}

#define F(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define G(x, y, z) (((x) & (y)) + (((x) ^ (y)) & (z)))
#define H(x, y, z) ((x) ^ (y) ^ (z))
#define STEP(f, a, b, c, d, x, s) ((a) += f((b), (c), (d)) + (x), (a) = rol((a), (s)))

/* MD4's rounds with half the input and fewer steps. */
static void half_md4(uint32_t buf[4], const uint32_t in[8])
{
	const uint32_t k2 = 013240474631u, k3 = 015666365641u;
	uint32_t a = buf[0], b = buf[1], c = buf[2], d = buf[3];

	STEP(F, a, b, c, d, in[0], 3);
	STEP(F, d, a, b, c, in[1], 7);
	STEP(F, c, d, a, b, in[2], 11);
	STEP(F, b, c, d, a, in[3], 19);
	STEP(F, a, b, c, d, in[4], 3);
	STEP(F, d, a, b, c, in[5], 7);
	STEP(F, c, d, a, b, in[6], 11);
	STEP(F, b, c, d, a, in[7], 19);

	STEP(G, a, b, c, d, in[1] + k2, 3);
	STEP(G, d, a, b, c, in[3] + k2, 5);
	STEP(G, c, d, a, b, in[5] + k2, 9);
	STEP(G, b, c, d, a, in[7] + k2, 13);
	STEP(G, a, b, c, d, in[0] + k2, 3);
	STEP(G, d, a, b, c, in[2] + k2, 5);
	STEP(G, c, d, a, b, in[4] + k2, 9);
	STEP(G, b, c, d, a, in[6] + k2, 13);

	STEP(H, a, b, c, d, in[3] + k3, 3);
	STEP(H, d, a, b, c, in[7] + k3, 9);
	STEP(H, c, d, a, b, in[2] + k3, 11);
	STEP(H, b, c, d, a, in[6] + k3, 15);
	STEP(H, a, b, c, d, in[1] + k3, 3);
	STEP(H, d, a, b, c, in[5] + k3, 9);
	STEP(H, c, d, a, b, in[0] + k3, 11);
	STEP(H, b, c, d, a, in[4] + k3, 15);

	buf[0] += a;
	buf[1] += b;
	buf[2] += c;
	buf[3] += d;
}

static int raw_dirhash(enum cf_ext4_hash alg, const uint32_t seed[4], const char *p, size_t len,
		       uint32_t *major, uint32_t *minor)
{
	uint32_t buf[4] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476 }, in[8];
	uint32_t hash, minor_hash = 0;
	int is_signed = alg < CF_EXT4_HASH_LEGACY_UNSIGNED;

	if (seed && (seed[0] | seed[1] | seed[2] | seed[3]))
		memcpy(buf, seed, sizeof(buf));
	switch (alg) {
	case CF_EXT4_HASH_LEGACY:
	case CF_EXT4_HASH_LEGACY_UNSIGNED:
		hash = legacy(p, len, is_signed);
		break;
	case CF_EXT4_HASH_HALF_MD4:
	case CF_EXT4_HASH_HALF_MD4_UNSIGNED:
		/* The loop runs once even for an empty name in neither kernel
		 * nor e2fsprogs: len > 0 is its condition. */
		for (; len > 0; len = len > 32 ? len - 32 : 0, p += 32) {
			str2hashbuf(p, len, in, 8, is_signed);
			half_md4(buf, in);
		}
		hash = buf[1];
		minor_hash = buf[2];
		break;
	case CF_EXT4_HASH_TEA:
	case CF_EXT4_HASH_TEA_UNSIGNED:
		for (; len > 0; len = len > 16 ? len - 16 : 0, p += 16) {
			str2hashbuf(p, len, in, 4, is_signed);
			tea(buf, in);
		}
		hash = buf[0];
		minor_hash = buf[1];
		break;
	default:
		return -EINVAL;
	}
	hash &= ~1u;
	if (hash == EOF_HASH_32 << 1)
		hash = (EOF_HASH_32 - 1) << 1;
	*major = hash;
	if (minor)
		*minor = minor_hash;
	return 0;
}

int cf_ext4_name_hash(const cf_encoding *enc, enum cf_ext4_hash alg, const uint32_t seed[4],
		      const char *name, size_t len, uint32_t *major, uint32_t *minor)
{
	/* Linux folds into a PATH_MAX buffer, NUL-terminated, and hashes the
	 * raw name when folding fails for any reason — a result of 4,096 bytes
	 * or more included (malformed names can grow that much). */
	char folded[4096];
	ssize_t n;

	if (enc && (n = cf_casefold(enc, name, len, folded, sizeof(folded) - 1)) >= 0)
		return raw_dirhash(alg, seed, folded, (size_t)n, major, minor);
	return raw_dirhash(alg, seed, name, len, major, minor);
}

void cf_ext4_hash_seed(const unsigned char bytes[16], uint32_t seed[4])
{
	for (int i = 0; i < 4; i++)
		seed[i] = (uint32_t)bytes[4 * i] | (uint32_t)bytes[4 * i + 1] << 8 |
			  (uint32_t)bytes[4 * i + 2] << 16 | (uint32_t)bytes[4 * i + 3] << 24;
}

int cf_ext4_encoding_load(cf_encoding *enc, uint16_t magic, uint16_t flags)
{
	unsigned f = 0;

	if (magic != CF_EXT4_ENC_UTF8_12_1)
		return -ENOENT;
	if (flags & CF_EXT4_ENC_STRICT_FL)
		f |= CF_STRICT;
	return cf_encoding_load(enc, "utf8-12.1.0", f);
}

int cf_ext4_encoding_magic(const cf_encoding *enc, uint16_t *magic, uint16_t *flags)
{
	if (enc->kind != CF_KIND_UTF8 || strcmp(cf_encoding_name(enc), "utf8-12.1.0") ||
	    (enc->flags & CF_KEEP_IGNORABLES))
		return -ENOENT;
	*magic = CF_EXT4_ENC_UTF8_12_1;
	*flags = (enc->flags & CF_STRICT) ? CF_EXT4_ENC_STRICT_FL : 0;
	return 0;
}
