/*
 * libext2fs 1.47: e2fsprogs' copy of the kernel's fs/unicode (Unicode 12.1,
 * ignorables stripped), the algorithm ext4 runs.  Its fold is reachable only
 * through the table's private layout, which tests/unit/ext2fs_oracle.h checks.
 */
#include <stdio.h>

#include "bench.h"
#include "ext2fs_oracle.h"

int e2_init(void)
{
	if (oracle_open()) {
		fprintf(stderr, "libext2fs: utf8 table layout not recognised\n");
		return -1;
	}
	return 0;
}

static ssize_t fold(const char *s, size_t len, char *out, size_t cap)
{
	return oracle_fold(s, len, (unsigned char *)out, cap);
}

/* It answers -1 for "less" and for invalid input alike: only "equal" is trustworthy. */
static int cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	return ext2fs_casefold_cmp((const struct ext2fs_nls_table *)oracle, (const unsigned char *)a,
				   alen, (const unsigned char *)b, blen) != 0;
}

static int dirhash(const char *s, size_t len, uint32_t h[2], int fold_it)
{
	ext2_dirhash_t major, minor;
	errcode_t err = ext2fs_dirhash2(EXT2_HASH_HALF_MD4, s, (int)len,
					fold_it ? (const struct ext2fs_nls_table *)oracle : NULL,
					fold_it ? EXT4_CASEFOLD_FL : 0, NULL, &major, &minor);

	h[0] = major;
	h[1] = minor;
	return err ? -1 : 0;
}

static int dirhash_fold(const char *s, size_t len, uint32_t h[2])
{
	return dirhash(s, len, h, 1);
}

static int dirhash_raw(const char *s, size_t len, uint32_t h[2])
{
	return dirhash(s, len, h, 0);
}

const struct impl e2_fold = {"libext2fs utf8 casefold (kernel)", ROLE_PEER, .fold = fold,
			     .ref_encoding = "utf8-12.1.0"};
const struct impl e2_cmp = {"libext2fs ext2fs_casefold_cmp", ROLE_PEER, .cmp = cmp};
const struct impl e2_dirhash = {"libext2fs ext2fs_dirhash2 half_md4 casefold", ROLE_PEER,
				.hash = dirhash_fold, .ref_hash = &self_dirhash};
const struct impl e2_dirhash_raw = {"ext2fs_dirhash2 half_md4, no fold", ROLE_BOUND,
				    .hash = dirhash_raw, .ref_hash = &self_dirhash_raw};
