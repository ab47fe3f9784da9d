/*
 * utf8-12.1.0 with ignorables stripped must be byte-for-byte the kernel's
 * nfdicf (libext2fs is e2fsprogs' copy of the kernel code):
 *   1. every code point U+0000..U+10FFFF as a one-character name;
 *   2. one million random names mixing ASCII, combining marks in
 *      non-canonical order (U+0345 among them), Hangul, ignorables,
 *      characters newer than 12.1 and invalid bytes;
 *   3. compare results agree with ext2fs_casefold_cmp on random pairs;
 *   4. ext4 directory hashes (every algorithm, with and without casefold,
 *      default and random seeds) agree with ext2fs_dirhash2 on both sets,
 *      wherever libext2fs can hash at all (see casefold_ext4.h).
 * Set CF_ORACLE_STRINGS to change the number of random names.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "casefold.h"
#include "casefold_ext4.h"
#include "check.h"
#include "utf8enc.h"
#include "ext2fs_oracle.h"
#define RND_SEED 0x9E3779B97F4A7C15ull
#include "rnd.h"

static cf_encoding enc;

static uint32_t seed[4];
static unsigned long hashes_checked;

/* Compare the ext4 dirhash of s under alg with libext2fs's; casefolded
 * if fold.  Returns 1 if they agree or libext2fs cannot hash s. */
static int hash_agrees(const char *s, size_t len, int alg, int fold)
{
	ext2_dirhash_t wmaj = 0, wmin = 0;
	uint32_t gmaj = 0, gmin = 0;
	errcode_t err = ext2fs_dirhash2(alg, s, (int)len, fold ? (const void *)oracle : NULL,
					fold ? EXT4_CASEFOLD_FL : 0, seed, &wmaj, &wmin);

	if (err)
		return 1;
	hashes_checked++;
	if (cf_ext4_name_hash(fold ? &enc : NULL, (enum cf_ext4_hash)alg, seed, s, len, &gmaj, &gmin))
		return 0;
	return wmaj == gmaj && wmin == gmin;
}

/* Compare our fold of s with the oracle's, and the half_md4 casefold
 * dirhash, plus one other algorithm; returns 1 if they agree. */
static int agree(const char *s, size_t len)
{
	static int alg;

	if (!hash_agrees(s, len, EXT2_HASH_HALF_MD4, 1) ||
	    !hash_agrees(s, len, alg++ % 6, (int)(len & 1)))
		return 0;

	unsigned char want[4096];
	char got[4096];
	int w = oracle_fold(s, len, want, sizeof(want));
	ssize_t g = cf_casefold(&enc, s, len, got, sizeof(got));

	if (w < 0 || g < 0)
		return (w < 0) == (g < 0);
	return w == g && !memcmp(want, got, (size_t)w);
}

static void every_code_point(void)
{
	unsigned long diffs = 0;

	for (uint32_t c = 0; c <= 0x10FFFF; c++) {
		char s[4];
		int n = put_utf8(c, s);
		if (!agree(s, (size_t)n)) {
			diffs++;
			CHECK(0, "U+%04X folds differently", c);
		}
	}
	printf("every code point: %lu differences\n", diffs);
	CHECK(diffs == 0, "code points differ");
}

/* Characters chosen to exercise the interesting paths. */
static const uint32_t marks[] = { 0x0300, 0x0301, 0x0316, 0x0345, 0x0327, 0x0328, 0x031B,
				  0x05B0, 0x0F72, 0x0F74, 0x1DCE, 0x20D2, 0x302A, 0x3099,
				  0x1D165, 0x1D16E, 0x0334, 0x0358, 0x1AB0, 0x1DF9 };
static const uint32_t ignorables[] = { 0x00AD, 0x034F, 0x200B, 0x200D, 0x2060, 0xFE0F,
				       0xFEFF, 0x2065, 0xE0001, 0x1BCA0, 0x180B, 0x115F };
static const uint32_t newer[] = { 0x08BE, 0x0D81, 0x1AC0, 0x1DFA, 0x2B97, 0x2E50, 0x9FF0,
				  0xA7C2, 0xAB68, 0x10E80, 0x16FE4, 0x18B00, 0x1FAD0, 0x0C5D,
				  0x1E4EC, 0xA7CB, 0x1C89, 0x10570, 0x1E030 };
static const uint32_t cased[] = { 0x00C5, 0x212B, 0x00DF, 0x1E9E, 0x0130, 0x0390, 0x1F88,
				  0x13A0, 0xAB70, 0x1C90, 0x10D0, 0xA7AE, 0x104B0, 0x03A3,
				  0x01C4, 0x0149, 0xFB03, 0x1E9B, 0x1FD3, 0x212A };

static size_t random_name(char *s)
{
	size_t n = 0, want = 1 + rnd(24);

	while (n < want) {
		uint32_t k = rnd(100), c;
		if (k < 30) {
			/* Sometimes a long ASCII run, to cross the 8-byte blocks of
			 * the fast path at every offset. */
			for (uint32_t r = rnd(4) ? 0 : rnd(20); r > 0 && n < 200; r--)
				s[n++] = (char)(0x20 + rnd(0x5F));
			c = 0x20 + rnd(0x5F);
		} else if (k < 50) {
			c = marks[rnd(sizeof(marks) / sizeof(marks[0]))];
		} else if (k < 58) {
			c = 0xAC00 + rnd(11172);
		} else if (k < 62) {
			c = 0x1100 + rnd(0x100);
		} else if (k < 68) {
			c = ignorables[rnd(sizeof(ignorables) / sizeof(ignorables[0]))];
		} else if (k < 73) {
			c = newer[rnd(sizeof(newer) / sizeof(newer[0]))];
		} else if (k < 83) {
			c = cased[rnd(sizeof(cased) / sizeof(cased[0]))];
		} else if (k < 90) {
			c = rnd(0x3000);
		} else if (k < 93) {
			c = rnd(0x110000);
			if (c >= 0xD800 && c <= 0xDFFF)
				c = 0x41;
		} else {
			/* An invalid or stray byte, or a NUL. */
			static const unsigned char bad[] = { 0x80, 0xBF, 0xC0, 0xC3, 0xE2, 0xED, 0xF0,
							     0xF4, 0xF5, 0xFF, 0x00, 0x8A };
			s[n++] = (char)bad[rnd(sizeof(bad))];
			continue;
		}
		n += (size_t)put_utf8(c, s + n);
	}
	return n;
}

static void random_names(unsigned long count)
{
	unsigned long diffs = 0, invalid = 0;
	char s[256];

	for (unsigned long i = 0; i < count; i++) {
		size_t n = random_name(s);
		char out[1];
		if (cf_casefold(&enc, s, n, out, 0) == -EINVAL)
			invalid++;
		if (!agree(s, n)) {
			diffs++;
			CHECK(0, "random name %s folds differently", hexs(s, (long)n));
		}
	}
	printf("random names: %lu tested (%lu invalid), %lu differences\n", count, invalid, diffs);
	CHECK(diffs == 0, "random names differ");
	CHECK(invalid > count / 100 && invalid < count / 2, "mix has %lu invalid names", invalid);
}

static void random_pairs(unsigned long count)
{
	unsigned long diffs = 0, equal = 0;
	char a[256], b[256];

	for (unsigned long i = 0; i < count; i++) {
		size_t na = random_name(a), nb;
		/* Half the pairs are case/normalization variants of each other. */
		if (rnd(2)) {
			nb = na;
			for (size_t k = 0; k < na; k++)
				b[k] = (a[k] >= 'a' && a[k] <= 'z') ? (char)(a[k] - 32) : a[k];
		} else {
			nb = random_name(b);
		}
		int w = oracle->ops->casefold_cmp(oracle, (const unsigned char *)a, na,
						  (const unsigned char *)b, nb);
		int g = cf_casefold_equal(&enc, a, na, b, nb);
		/* libext2fs answers -1 for both "less" and "invalid"; compare
		 * equality only, where both could fold. */
		unsigned char fa[2048], fb[2048];
		if (na == nb && !memcmp(a, b, na))
			CHECK(g == (oracle_fold(a, na, fa, sizeof(fa)) < 0 ? -EINVAL : 1),
			      "identical %s: %d", hexs(a, (long)na), g);
		if (oracle_fold(a, na, fa, sizeof(fa)) < 0 || oracle_fold(b, nb, fb, sizeof(fb)) < 0) {
			CHECK(g != 1 || (na == nb && !memcmp(a, b, na)), "invalid pair compared equal");
			continue;
		}
		equal += w == 0;
		if ((w == 0) != (g == 1)) {
			diffs++;
			CHECK(0, "pair %s / %s: kernel %d, ours %d", hexs(a, (long)na), hexs(b, (long)nb), w, g);
		}
	}
	printf("random pairs: %lu compared (%lu equal), %lu differences\n", count, equal, diffs);
	CHECK(diffs == 0, "pairs differ");
}

int main(void)
{
	const char *env = getenv("CF_ORACLE_STRINGS");
	unsigned long count = env ? strtoul(env, NULL, 10) : 1000000;

	if (oracle_open()) {
		printf("libext2fs private table layout not recognised\n");
		return 1;
	}
	CHECK(cf_encoding_load(&enc, "utf8-12.1.0", 0) == 0, "load");
	every_code_point();
	random_names(count);
	/* The rest with a non-default hash seed. */
	seed[0] = 0x01234567, seed[1] = 0x89abcdef, seed[2] = 0xdeadbeef, seed[3] = 0x5eed5eed;
	random_pairs(count / 4);
	random_names(count / 4);
	printf("ext4 dirhashes compared: %lu\n", hashes_checked);
	CHECK(hashes_checked > count, "too few hashes compared");
	return test_done("kernel oracle");
}
