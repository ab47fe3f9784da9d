/* libcasefold itself, through its public API only: utf8-12.1.0, ignorables stripped (ext4's encoding). */
#include <stdio.h>

#include "bench.h"
#include "casefold.h"
#include "casefold_ext4.h"

static cf_encoding enc;

int self_init(void)
{
	if (cf_encoding_load(&enc, "utf8-12.1.0", 0)) {
		fprintf(stderr, "libcasefold: cannot load utf8-12.1.0\n");
		return -1;
	}
	return 0;
}

static ssize_t fold(const char *s, size_t len, char *out, size_t cap)
{
	return cf_casefold(&enc, s, len, out, cap);
}

/* The harness wants 0 for equal: libcasefold answers 1, so invert. */
static int difference(int equal)
{
	return equal < 0 ? equal : !equal;
}

static int cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	return difference(cf_casefold_equal(&enc, a, alen, b, blen));
}

/* The directory-lookup rule (exact bytes first). */
static int match(const char *a, size_t alen, const char *b, size_t blen)
{
	return difference(cf_name_match(&enc, a, alen, b, blen));
}

static int hash(const char *s, size_t len, uint32_t h[2])
{
	uint64_t v;
	int r = cf_casefold_hash(&enc, s, len, &v);

	h[0] = (uint32_t)v;
	h[1] = (uint32_t)(v >> 32);
	return r;
}

static int dirhash(const char *s, size_t len, uint32_t h[2])
{
	return cf_ext4_name_hash(&enc, CF_EXT4_HASH_HALF_MD4, NULL, s, len, &h[0], &h[1]);
}

/* The same hash of the raw bytes: what hashing costs without folding. */
static int dirhash_raw(const char *s, size_t len, uint32_t h[2])
{
	return cf_ext4_name_hash(NULL, CF_EXT4_HASH_HALF_MD4, NULL, s, len, &h[0], &h[1]);
}

const struct impl self_fold = {"libcasefold cf_casefold", ROLE_SELF, .fold = fold};
const struct impl self_cmp = {"libcasefold cf_casefold_equal", ROLE_SELF, .cmp = cmp};
const struct impl self_match = {"libcasefold cf_name_match", ROLE_SELF, .cmp = match};
const struct impl self_hash = {"libcasefold cf_casefold_hash", ROLE_SELF, .hash = hash};
const struct impl self_dirhash = {"libcasefold cf_ext4_name_hash half_md4 casefold", ROLE_SELF,
				  .hash = dirhash};
const struct impl self_dirhash_raw = {"cf_ext4_name_hash half_md4, no fold", ROLE_BOUND,
				      .hash = dirhash_raw};
