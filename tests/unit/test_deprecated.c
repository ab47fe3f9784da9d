/*
 * The names of 0.1 that 0.2 renamed (casefold.h: ABI policy): each still
 * answers as it did, that is as its replacement with 0.1's argument order
 * or return values.  tests/install checks that the library exports them.
 */
#define CF_ALLOW_DEPRECATED /* this file is where they are still used */

#include <errno.h>
#include <string.h>

#include "casefold.h"
#include "casefold_ext4.h"
#include "check.h"

/* 0.1's comparisons: 0 equal, 1 different, -EINVAL. */
static void comparisons(const cf_encoding *e)
{
	static const char *const names[] = { "Stra\xC3\x9F\x65", "STRASSE", "\xC3\x85", "A\xCC\x8A",
					     "a\xCC\x8A", "\xE2\x84\xAB", "\xFF", "a\x80", "b" };
	const size_t n = sizeof(names) / sizeof(names[0]);

	for (size_t i = 0; i < n; i++) {
		const char *a = names[i];
		size_t alen = strlen(a);
		char folded[CF_FOLD_MAX];
		ssize_t flen = cf_casefold(e, a, alen, folded, sizeof(folded));

		for (size_t j = 0; j < n; j++) {
			const char *b = names[j];
			size_t blen = strlen(b);
			int nfdi = cf_normalize_equal(e, a, alen, b, blen);
			int nfdicf = cf_casefold_equal(e, a, alen, b, blen);

			CHECK(cf_strcmp(e, a, alen, b, blen) == (nfdi < 0 ? nfdi : !nfdi),
			      "cf_strcmp %s / %s", hexs(a, (long)alen), hexs(b, (long)blen));
			CHECK(cf_strcasecmp(e, a, alen, b, blen) == (nfdicf < 0 ? nfdicf : !nfdicf),
			      "cf_strcasecmp %s / %s", hexs(a, (long)alen), hexs(b, (long)blen));
			if (flen < 0)
				continue;
			int f = cf_casefold_equal_folded(e, folded, (size_t)flen, b, blen);
			CHECK(cf_strcasecmp_folded(e, folded, (size_t)flen, b, blen) ==
				      (f < 0 ? f : !f),
			      "cf_strcasecmp_folded %s / %s", hexs(a, (long)alen),
			      hexs(b, (long)blen));
		}
	}
	CHECK(cf_strcasecmp(e, "README", 6, "readme", 6) == 0, "0.1: 0 for equal");
	CHECK(cf_strcasecmp(e, "a", 1, "b", 1) == 1, "0.1: 1 for different");
}

static void dirhash(const cf_encoding *e)
{
	const uint32_t seed[4] = { 1, 2, 3, 4 };
	uint32_t major, minor, want_major, want_minor;

	for (int alg = CF_EXT4_HASH_LEGACY; alg <= CF_EXT4_HASH_TEA_UNSIGNED; alg++) {
		for (int fold = 0; fold < 2; fold++) {
			const cf_encoding *enc = fold ? e : NULL;

			CHECK(cf_ext4_name_hash(enc, (enum cf_ext4_hash)alg, seed, "Caf\xC3\xA9", 5,
						&want_major, &want_minor) == 0, "name_hash");
			CHECK(cf_ext4_dirhash((enum cf_ext4_hash)alg, seed, "Caf\xC3\xA9", 5, enc,
					      &major, &minor) == 0, "dirhash");
			CHECK(major == want_major && minor == want_minor, "alg %d fold %d", alg, fold);
		}
	}
	CHECK(cf_ext4_dirhash((enum cf_ext4_hash)99, NULL, "a", 1, e, &major, &minor) == -EINVAL,
	      "unknown algorithm");
}

int main(void)
{
	cf_encoding old, e;

	CHECK(cf_encoding_init(&old, "utf8-12.1.0", CF_STRICT) == 0, "init");
	CHECK(cf_encoding_load(&e, "utf8-12.1.0", CF_STRICT) == 0, "load");
	CHECK(memcmp(&old, &e, sizeof(e)) == 0, "init loads what load does");
	CHECK(cf_encoding_init(&old, "utf8-99.0.0", 0) == -ENOENT, "init: unknown name");
	CHECK(cf_encoding_init(&old, "ascii", 0x80) == -EINVAL, "init: unknown flag");
	CHECK(cf_encoding_load(&e, "utf8-12.1.0", 0) == 0, "load");
	comparisons(&e);
	dirhash(&e);
	return test_done("deprecated");
}
