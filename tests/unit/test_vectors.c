/*
 * Hand-checked vectors: the kernel's own test cases (utf8 selftest and
 * kunit), the age filter across versions, the ignorable policies, the
 * documented quirks on malformed input, the ASCII charset, encoding names,
 * and the buffer contract.
 */
#include <errno.h>
#include <string.h>

#include "casefold.h"
#include "casefold_ext4.h"
#include "check.h"
#include "hash.h"
#include "utf8enc.h"

struct vector {
	const char *enc;
	unsigned flags;
	int fold;         /* 1 nfdicf, 0 nfdi */
	const char *in;   /* bytes; length is strlen unless inlen is set */
	const char *out;  /* expected bytes, or NULL for the error err */
	int err;
	size_t inlen;
};

#define K "utf8-12.1.0"
static const struct vector vectors[] = {
	/* "aBba" is its own NFD; folded it is "abba". */
	{ K, 0, 0, "aBba", "aBba", 0, 0 },
	{ K, 0, 1, "ABba", "abba", 0, 0 },
	{ K, 0, 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0.1", "abcdefghijklmnopqrstuvwxyz0.1", 0, 0 },
	/* U+00BC VULGAR FRACTION ONE QUARTER: compatibility only, unchanged. */
	{ K, 0, 0, "\xC2\xBC", "\xC2\xBC", 0, 0 },
	/* U+00E4 a WITH DIAERESIS -> a + U+0308 COMBINING DIAERESIS. */
	{ K, 0, 0, "\xC3\xA4", "a\xCC\x88", 0, 0 },
	/* U+01C9 LATIN SMALL LETTER LJ: compatibility only, unchanged. */
	{ K, 0, 0, "\xC7\x89", "\xC7\x89", 0, 0 },
	/* U+0387 GREEK ANO TELEIA -> U+00B7 MIDDLE DOT (singleton). */
	{ K, 0, 0, "\xCE\x87", "\xC2\xB7", 0, 0 },
	/* A + U+0301 ACUTE (230) + U+0328 OGONEK (202): reordered by class. */
	{ K, 0, 0, "A\xCC\x81\xCC\xA8", "A\xCC\xA8\xCC\x81", 0, 0 },
	/* U+00E4 + U+0328 OGONEK -> a + U+0328 + U+0308. */
	{ K, 0, 0, "\xC3\xA4\xCC\xA8", "a\xCC\xA8\xCC\x88", 0, 0 },
	/* U+00DF SHARP S folds to "ss"; U+1E9E CAPITAL SHARP S too. */
	{ K, 0, 1, "\xC3\x9F", "ss", 0, 0 },
	{ K, 0, 1, "\xE1\xBA\x9E", "ss", 0, 0 },
	{ K, 0, 1, "Stra\xC3\x9F" "e", "strasse", 0, 0 },
	/* U+00C5 A WITH RING ABOVE, A + U+030A and U+212B ANGSTROM SIGN all
	 * fold to a + U+030A. */
	{ K, 0, 1, "\xC3\x85", "a\xCC\x8A", 0, 0 },
	{ K, 0, 1, "A\xCC\x8A", "a\xCC\x8A", 0, 0 },
	{ K, 0, 1, "\xE2\x84\xAB", "a\xCC\x8A", 0, 0 },
	/* U+212A KELVIN SIGN folds to k. */
	{ K, 0, 1, "\xE2\x84\xAA", "k", 0, 0 },
	/* U+AB70 CHEROKEE SMALL LETTER A folds to U+13A0 CHEROKEE LETTER A
	 * (Cherokee folds to upper case), from Unicode 8.0 on. */
	{ K, 0, 1, "\xEA\xAD\xB0", "\xE1\x8E\xA0", 0, 0 },
	{ "utf8-7.0.0", 0, 1, "\xEA\xAD\xB0", "\xEA\xAD\xB0", 0, 0 },
	{ "utf8-8.0.0", 0, 1, "\xEA\xAD\xB0", "\xE1\x8E\xA0", 0, 0 },
	/* U+13F8 CHEROKEE SMALL LETTER YE -> U+13F0 CHEROKEE LETTER YE. */
	{ K, 0, 1, "\xE1\x8F\xB8", "\xE1\x8F\xB0", 0, 0 },
	/* U+10C83 OLD HUNGARIAN CAPITAL LETTER AMB -> U+10CC3 small AMB. */
	{ K, 0, 1, "\xF0\x90\xB2\x83", "\xF0\x90\xB3\x83", 0, 0 },
	/* U+104B5 OSAGE CAPITAL LETTER CHA -> U+104DD OSAGE SMALL LETTER CHA
	 * (Unicode 9.0); unchanged for 8.0. */
	{ K, 0, 1, "\xF0\x90\x92\xB5", "\xF0\x90\x93\x9D", 0, 0 },
	{ "utf8-8.0.0", 0, 1, "\xF0\x90\x92\xB5", "\xF0\x90\x92\xB5", 0, 0 },
	/* U+A7AE LATIN CAPITAL LETTER SMALL CAPITAL I -> U+026A. */
	{ K, 0, 1, "\xEA\x9E\xAE", "\xC9\xAA", 0, 0 },
	/* U+1C90 GEORGIAN MTAVRULI CAPITAL LETTER AN -> U+10D0 GEORGIAN
	 * LETTER AN (Unicode 11.0); unchanged for 10.0. */
	{ K, 0, 1, "\xE1\xB2\x90", "\xE1\x83\x90", 0, 0 },
	{ "utf8-10.0.0", 0, 1, "\xE1\xB2\x90", "\xE1\xB2\x90", 0, 0 },
	/* U+A7C0 LATIN CAPITAL LETTER OLD POLISH O (Unicode 14.0): unassigned
	 * in 12.1, folds to U+A7C1 in 14.0 and later. */
	{ K, 0, 1, "\xEA\x9F\x80", "\xEA\x9F\x80", 0, 0 },
	{ "utf8-14.0.0", 0, 1, "\xEA\x9F\x80", "\xEA\x9F\x81", 0, 0 },
	{ "utf8-17.0.0", 0, 1, "\xEA\x9F\x80", "\xEA\x9F\x81", 0, 0 },
	/* U+0390 GREEK SMALL LETTER IOTA WITH DIALYTIKA AND TONOS: 2 bytes
	 * that fold to 6 (iota, U+0308, U+0301). */
	{ K, 0, 1, "\xCE\x90", "\xCE\xB9\xCC\x88\xCC\x81", 0, 0 },
	/* U+0130 CAPITAL I WITH DOT ABOVE folds (status F) to i + U+0307;
	 * the Turkic mapping (status T) is never used. */
	{ K, 0, 1, "\xC4\xB0", "i\xCC\x87", 0, 0 },
	/* A + U+0345 YPOGEGRAMMENI (240) + U+0301 ACUTE (230): the kernel folds
	 * U+0345 to U+03B9 iota, a starter, before ordering. */
	{ K, 0, 1, "A\xCD\x85\xCC\x81", "a\xCE\xB9\xCC\x81", 0, 0 },
	{ K, 0, 0, "A\xCD\x85\xCC\x81", "A\xCC\x81\xCD\x85", 0, 0 },
	/* U+D55C HANGUL SYLLABLE HAN -> U+1112 U+1161 U+11AB (LVT); U+AC00 GA
	 * -> U+1100 U+1161 (LV). */
	{ K, 0, 0, "\xED\x95\x9C", "\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB", 0, 0 },
	{ K, 0, 1, "\xEA\xB0\x80", "\xE1\x84\x80\xE1\x85\xA1", 0, 0 },
	/* Default_Ignorable code points: U+200D ZWJ, U+FE0F VS16, U+00AD SOFT
	 * HYPHEN, U+2065 (reserved, still ignorable) are removed unless kept. */
	{ K, 0, 1, "a\xE2\x80\x8D" "b", "ab", 0, 0 },
	{ K, CF_KEEP_IGNORABLES, 1, "a\xE2\x80\x8D" "b", "a\xE2\x80\x8D" "b", 0, 0 },
	{ K, 0, 1, "\xE2\x9D\xA4\xEF\xB8\x8F", "\xE2\x9D\xA4", 0, 0 },
	{ K, 0, 0, "co\xC2\xADop", "coop", 0, 0 },
	{ K, 0, 0, "\xE2\x81\xA5", "", 0, 0 },
	/* An ignorable between two marks ends the run of non-starters:
	 * a + U+0301 + ZWJ + U+0316 keeps U+0301 before U+0316. */
	{ K, 0, 0, "a\xCC\x81\xE2\x80\x8D\xCC\x96", "a\xCC\x81\xCC\x96", 0, 0 },
	{ K, 0, 0, "a\xCC\x81\xCC\x96", "a\xCC\x96\xCC\x81", 0, 0 },
	/* Quirks on malformed input (see casefold.h). */
	{ K, 0, 1, "AB\0CD", "ab", 0, 5 },               /* NUL ends the name */
	{ K, 0, 1, "\x80" "a", NULL, -EINVAL, 0 },       /* leading continuation */
	{ K, 0, 1, "A\x80" "B", "a\x80" "b", 0, 0 },     /* stray one passes */
	/* ... and is emitted once per reordering pass when it follows a
	 * non-starter: U+00E9 + 0xA9 gives e, A9, U+0301, A9 (as libext2fs). */
	{ K, 0, 1, "\xC3\xA9\xA9", "e\xA9\xCC\x81\xA9", 0, 0 },
	{ K, 0, 1, "a\xC0\x80", NULL, -EINVAL, 0 },      /* overlong NUL */
	{ K, 0, 1, "\xE0\x80\xAF", NULL, -EINVAL, 0 },   /* overlong '/' */
	{ K, 0, 1, "\xED\xA0\x80", NULL, -EINVAL, 0 },   /* surrogate U+D800 */
	{ K, 0, 1, "\xF4\x90\x80\x80", NULL, -EINVAL, 0 }, /* U+110000 */
	{ K, 0, 1, "\xF8\x88\x80\x80\x80", NULL, -EINVAL, 0 }, /* 5-byte form */
	{ K, 0, 1, "\xFC\x84\x80\x80\x80\x80", NULL, -EINVAL, 0 }, /* 6-byte */
	{ K, 0, 1, "ab\xE2\x84", NULL, -EINVAL, 0 },     /* truncated */
	{ K, 0, 1, "\xEF\xBF\xBF", "\xEF\xBF\xBF", 0, 0 }, /* U+FFFF noncharacter */
	{ K, 0, 1, "\xF3\xB0\x80\x80", "\xF3\xB0\x80\x80", 0, 0 }, /* unassigned */
	/* ASCII: only A-Z fold; other bytes below 0x80 pass; above are invalid. */
	{ "ascii", 0, 1, "MiXeD-09_Z", "mixed-09_z", 0, 0 },
	{ "ascii", 0, 0, "MiXeD", "MiXeD", 0, 0 },
	{ "ascii", 0, 1, "caf\xC3\xA9", NULL, -EINVAL, 0 },
};

static void run_vectors(void)
{
	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		const struct vector *v = &vectors[i];
		size_t inlen = v->inlen ? v->inlen : strlen(v->in);
		cf_encoding enc;
		char out[256];

		CHECK(cf_encoding_load(&enc, v->enc, v->flags) == 0, "load %s", v->enc);
		ssize_t n = v->fold ? cf_casefold(&enc, v->in, inlen, out, sizeof(out))
				    : cf_normalize(&enc, v->in, inlen, out, sizeof(out));
		if (v->out)
			CHECK(n == (ssize_t)strlen(v->out) && !memcmp(out, v->out, (size_t)n),
			      "vector %zu (%s): %s -> %s, want %s", i, v->enc, hexs(v->in, (long)inlen),
			      hexs(out, n), hexs(v->out, (long)strlen(v->out)));
		else
			CHECK(n == v->err, "vector %zu: %s -> %zd, want %d", i, hexs(v->in, (long)inlen),
			      n, v->err);
	}
}

static void encodings(void)
{
	cf_encoding e;

	CHECK(cf_encoding_load(&e, "utf8", 0) == 0 && !strcmp(cf_encoding_name(&e), "utf8-12.1.0"),
	      "utf8 is 12.1.0");
	CHECK(cf_encoding_unicode_version(&e) == 0x0C0100, "version code");
	CHECK(cf_encoding_load(&e, "12.1.0", 0) == 0 && !strcmp(cf_encoding_name(&e), "utf8-12.1.0"),
	      "bare version");
	CHECK(cf_encoding_load(&e, "utf8-12.1", 0) == 0, "ext4's spelling utf8-12.1");
	CHECK(cf_encoding_load(&e, "utf8-1.1.0", 0) == 0, "oldest");
	CHECK(cf_encoding_load(&e, "utf8-17.0.0", 0) == 0, "newest");
	CHECK(cf_encoding_load(&e, "utf8-12.1.1", 0) == -ENOENT, "patch level");
	CHECK(cf_encoding_load(&e, "utf8-18.0.0", 0) == -ENOENT, "future");
	CHECK(cf_encoding_load(&e, "utf8-", 0) == -ENOENT, "empty version");
	CHECK(cf_encoding_load(&e, "latin1", 0) == -ENOENT, "unknown");
	CHECK(cf_encoding_load(&e, "utf8", 0x100) == -EINVAL, "bad flags");
	CHECK(!strcmp(cf_encoding_latest(), "utf8-17.0.0"), "latest");
	CHECK(!strcmp(cf_encoding_list(0), "utf8-17.0.0"), "list starts with latest");
	size_t n = 0;
	while (cf_encoding_list(n))
		CHECK(cf_encoding_is_supported(cf_encoding_list(n++)), "listed but unsupported");
	CHECK(n == 29 && !strcmp(cf_encoding_list(n - 1), "ascii"), "28 versions then ascii, %zu", n);
	CHECK(!strcmp(cf_unicode_data_version(), "17.0.0"), "data version");
}

/* Every buffer size from 0 up: -ENAMETOOLONG below the exact length, the
 * result from it on; invalid beats too long. */
static void buffers(void)
{
	cf_encoding e;
	char out[64];
	const char *s = "\xCE\x90\xC3\x9F" "A"; /* folds to 6 + 2 + 1 = 9 bytes */

	cf_encoding_load(&e, "utf8", 0);
	for (size_t d = 0; d < 12; d++) {
		ssize_t n = cf_casefold(&e, s, strlen(s), out, d);
		CHECK(d < 9 ? n == -ENAMETOOLONG : n == 9, "dlen %zu gives %zd", d, n);
	}
	CHECK(cf_casefold(&e, "AB\xFF", 3, out, 1) == -EINVAL, "invalid beats too long");
	CHECK(cf_casefold(&e, "", 0, out, 0) == 0, "empty name");
	CHECK(cf_casefold(&e, NULL, 0, out, 0) == 0, "NULL empty name");
}

static void compare_and_match(void)
{
	cf_encoding e, strict;
	uint64_t h1, h2;

	cf_encoding_load(&e, "utf8", 0);
	cf_encoding_load(&strict, "utf8", CF_STRICT);
	CHECK(cf_casefold_equal(&e, "Stra\xC3\x9F" "e", 7, "STRASSE", 7) == 1, "strasse");
	CHECK(cf_casefold_equal(&e, "a", 1, "b", 1) == 0, "a != b");
	CHECK(cf_normalize_equal(&e, "\xC3\x85", 2, "A\xCC\x8A", 3) == 1, "nfdi equal");
	CHECK(cf_normalize_equal(&e, "\xC3\x85", 2, "a\xCC\x8A", 3) == 0, "nfdi keeps case");
	CHECK(cf_casefold_equal(&e, "\xFF", 1, "\xFF", 1) == -EINVAL, "invalid identical");
	CHECK(cf_casefold_equal(&e, "a\x80", 2, "a\x80", 2) == 1, "stray continuation identical");
	CHECK(cf_casefold_equal_folded(&e, "a\xCC\x8A", 3, "\xE2\x84\xAB", 3) == 1, "folded form");
	CHECK(cf_casefold_equal_folded(&e, "a\xCC\x8A", 3, "\xE2\x84\xABx", 4) == 0, "folded shorter");
	CHECK(cf_casefold_equal_folded(&e, "a\xCC\x8Ax", 4, "\xE2\x84\xAB", 3) == 0, "folded longer");
	CHECK(cf_name_match(&e, "README", 6, "readme", 6) == 1, "match case");
	CHECK(cf_name_match(&e, "caf\xE9", 4, "caf\xE9", 4) == 1, "invalid matches itself");
	CHECK(cf_name_match(&e, "CAF\xE9", 4, "caf\xE9", 4) == 0, "invalid is opaque");
	CHECK(cf_name_match(&strict, "CAF\xE9", 4, "caf\xE9", 4) == -EINVAL, "strict rejects");
	CHECK(cf_name_hash(&e, "README", 6, &h1) == 0 && cf_name_hash(&e, "ReadMe", 6, &h2) == 0 &&
		      h1 == h2, "hash ignores case");
	CHECK(cf_name_hash(&e, "caf\xE9", 4, &h1) == 0, "invalid hashes raw");
	CHECK(cf_name_hash(&strict, "caf\xE9", 4, &h1) == -EINVAL, "strict invalid hash");
	/* Strict refuses what the kernel's lookup refuses: names it cannot
	 * fold.  A stray continuation byte folds (Linux 6.1: ENOENT, not EINVAL). */
	CHECK(cf_name_match(&strict, "cont\x80", 5, "CONT\x80", 5) == 1, "strict stray matches");
	CHECK(cf_name_match(&strict, "hi\xBF", 3, "hi", 2) == 0, "strict stray differs");
	CHECK(cf_name_hash(&strict, "\xC3\xA9\x80", 3, &h1) == 0 &&
		      cf_name_hash(&strict, "\xC3\x89\x80", 3, &h2) == 0 && h1 == h2,
	      "strict stray hashes folded");
	CHECK(cf_name_match(&strict, "\x80lead", 5, "\x80lead", 5) == -EINVAL,
	      "strict leading continuation");
	CHECK(cf_name_hash(&strict, "over\xC0\xAF", 6, &h1) == -EINVAL, "strict overlong");
	CHECK(cf_casefold_hash(&e, "a", 1, &h1) == 0 && cf_casefold_hash(&e, "b", 1, &h2) == 0 &&
		      h1 != h2, "hash differs");
	CHECK(cf_validate(&e, "a\x80", 2) == -EINVAL, "validate rejects stray continuation");
	CHECK(cf_validate(&e, "ab\0\xFF", 4) == 0, "validate stops at NUL");
	CHECK(cf_validate(&e, "\xEF\xBF\xBF", 3) == 0, "noncharacter valid");
	CHECK(cf_strerror(-EINVAL)[0] && cf_strerror(-ENAMETOOLONG)[0], "messages");
}

/* The hash is SipHash-2-4: the reference vector of its paper (key 00..0f,
 * message 00..0e) fed in pieces of every size. */
static void siphash(void)
{
	const uint64_t key[2] = { 0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull };
	unsigned char msg[15];

	for (unsigned i = 0; i < sizeof(msg); i++)
		msg[i] = (unsigned char)i;
	for (size_t piece = 1; piece <= sizeof(msg); piece++) {
		struct cf_hasher h;
		cf_hash_init(&h, key);
		for (size_t at = 0; at < sizeof(msg); at += piece)
			cf_hash_bytes(&h, msg + at, at + piece > sizeof(msg) ? sizeof(msg) - at : piece);
		CHECK(cf_hash_final(&h) == 0xa129ca6149be45e5ull, "SipHash-2-4 vector, pieces of %zu",
		      piece);
	}
}

/* CF_FOLD_MAX holds the fold of any 255-byte name: no character's result is
 * more than three times as long as it, in any version or form. */
static void expansion_bound(void)
{
	cf_encoding e;
	size_t worst = 0;

	cf_encoding_load(&e, cf_encoding_latest(), CF_KEEP_IGNORABLES);
	for (uint32_t c = 1; c < 0x110000; c++) {
		char s[4], out[64];
		int n = put_utf8(c, s);
		ssize_t m = cf_casefold(&e, s, (size_t)n, out, sizeof(out));
		ssize_t k = cf_normalize(&e, s, (size_t)n, out, sizeof(out));
		if (c >= 0xD800 && c <= 0xDFFF)
			continue;
		CHECK(m >= 0 && m <= 3 * n && k >= 0 && k <= 3 * n, "U+%04X expands %zd/%zd from %d", c,
		      m, k, n);
		if ((size_t)m > worst)
			worst = (size_t)m;
	}
	CHECK(3 * 255 < CF_FOLD_MAX && worst <= 12, "bound");
}

/* Linux folds into a 4,096-byte buffer with room for a NUL: a folded name of
 * 4,095 bytes is hashed folded, one of 4,096 raw (found by fuzz_hash). */
static void dirhash_buffer_limit(void)
{
	static char upper[4096], lower[4096];
	uint32_t maj, min, want_maj, want_min;
	cf_encoding e;

	cf_encoding_load(&e, "utf8", 0);
	memset(upper, 'A', sizeof(upper));
	memset(lower, 'a', sizeof(lower));
	cf_ext4_name_hash(&e, CF_EXT4_HASH_HALF_MD4, NULL, upper, 4095, &maj, &min);
	cf_ext4_name_hash(NULL, CF_EXT4_HASH_HALF_MD4, NULL, lower, 4095, &want_maj, &want_min);
	CHECK(maj == want_maj && min == want_min, "4,095 bytes are hashed folded");
	cf_ext4_name_hash(&e, CF_EXT4_HASH_HALF_MD4, NULL, upper, 4096, &maj, &min);
	cf_ext4_name_hash(NULL, CF_EXT4_HASH_HALF_MD4, NULL, upper, 4096, &want_maj, &want_min);
	CHECK(maj == want_maj && min == want_min, "4,096 bytes are hashed raw");
}

int main(void)
{
	siphash();
	dirhash_buffer_limit();
	expansion_bound();
	run_vectors();
	encodings();
	buffers();
	compare_and_match();
	return test_done("vectors");
}
