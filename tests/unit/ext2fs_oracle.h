/*
 * libext2fs (e2fsprogs 1.47, Debian libext2fs-dev) as the kernel oracle.
 * Its Unicode 12.1 tables and cursor are e2fsprogs' copy of the kernel's.
 * The folded bytes are reachable only through the table's private layout:
 * {int version; const ops *ops;}, ops = {casefold, validate, casefold_cmp}.
 * oracle_open() checks the version field and a probe fold before trusting it.
 */
#ifndef CF_TEST_EXT2FS_ORACLE_H
#define CF_TEST_EXT2FS_ORACLE_H

#include <ext2fs/ext2fs.h>
#include <string.h>

struct oracle_ops {
	int (*casefold)(const void *table, const unsigned char *str, size_t len,
			unsigned char *dest, size_t dlen);
	int (*validate)(const void *table, char *s, size_t len, char **pos);
	int (*casefold_cmp)(const void *table, const unsigned char *s1, size_t l1,
			    const unsigned char *s2, size_t l2);
};

struct oracle_table {
	int version;
	const struct oracle_ops *ops;
};

static const struct oracle_table *oracle;

/* 0 on success; -1 if the private layout is not what we expect. */
static inline int oracle_open(void)
{
	unsigned char out[16];

	oracle = (const struct oracle_table *)ext2fs_load_nls_table(EXT4_ENC_UTF8_12_1);
	if (!oracle || oracle->version != 0x0C0100 || !oracle->ops || !oracle->ops->casefold)
		return -1;
	/* U+212B ANGSTROM SIGN folds to a U+030A. */
	if (oracle->ops->casefold(oracle, (const unsigned char *)"\xE2\x84\xAB", 3, out,
				  sizeof(out)) != 3 ||
	    memcmp(out, "a\xCC\x8A", 3))
		return -1;
	return 0;
}

/* The kernel's nfdicf of s: length, or negative when it cannot fold. */
static inline int oracle_fold(const char *s, size_t len, unsigned char *out, size_t olen)
{
	return oracle->ops->casefold(oracle, (const unsigned char *)s, len, out, olen);
}

#endif
