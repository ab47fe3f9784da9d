/*
 * The names of 0.1 that 0.2 replaced, still exported so that programs built
 * against 0.1 run unchanged on libcasefold.so.0 (casefold.h: ABI policy).
 * Each is its replacement, with the old argument order or return values.
 */
#include "casefold.h"
#include "casefold_ext4.h"

int cf_encoding_init(cf_encoding *enc, const char *name, unsigned flags)
{
	return cf_encoding_load(enc, name, flags);
}

/* 0.1's comparisons answered 0 for equal and 1 for different. */
static int difference(int equal)
{
	return equal < 0 ? equal : !equal;
}

int cf_strcmp(const cf_encoding *enc, const char *a, size_t alen, const char *b, size_t blen)
{
	return difference(cf_normalize_equal(enc, a, alen, b, blen));
}

int cf_strcasecmp(const cf_encoding *enc, const char *a, size_t alen, const char *b, size_t blen)
{
	return difference(cf_casefold_equal(enc, a, alen, b, blen));
}

int cf_strcasecmp_folded(const cf_encoding *enc, const char *folded, size_t flen,
			 const char *b, size_t blen)
{
	return difference(cf_casefold_equal_folded(enc, folded, flen, b, blen));
}

int cf_ext4_dirhash(enum cf_ext4_hash alg, const uint32_t seed[4], const char *name, size_t len,
		    const cf_encoding *enc, uint32_t *major, uint32_t *minor)
{
	return cf_ext4_name_hash(enc, alg, seed, name, len, major, minor);
}
