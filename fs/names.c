/*
 * The naming rule of a directory.  This is the daemon's only contact with
 * libcasefold: which names are acceptable, which names are the same, and a
 * hash consistent with sameness.  Nothing here folds anything by itself.
 */
#include <errno.h>
#include <string.h>

#include "casefoldfs.h"

enum cfs_rule names_rule(const struct cfs *fs, bool casefold)
{
	if (casefold && fs->has_encoding)
		return CFS_FOLD;
	if (fs->opt.normalize_all && fs->has_encoding)
		return CFS_NORMALIZE;
	return CFS_EXACT;
}

/* Names the kernel should never send, refused before any backing access. */
static int check_common(const char *name)
{
	size_t len = strlen(name);

	if (len > CFS_NAME_MAX)
		return -ENAMETOOLONG;
	if (len == 0 || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    strchr(name, '/'))
		return -EINVAL;
	return 0;
}

/* A name about to be created: strict directories store only valid UTF-8. */
int names_check_create(const struct cfs *fs, enum cfs_rule rule, const char *name)
{
	int err = check_common(name);

	if (err == 0 && rule == CFS_FOLD && fs->opt.strict &&
	    cf_validate(&fs->enc, name, strlen(name)) < 0)
		err = -EINVAL;
	return err;
}

/*
 * A name being looked up: in a strict +F directory a name the encoding
 * cannot fold is EINVAL, as on Linux, where the lookup fails while hashing
 * the name (d_hash) — before ext4 looks at its length, so a 256-byte name
 * that cannot be folded is EINVAL too.  Which names fold is the library's
 * strict matching rule: a stray continuation byte folds, so such a name is
 * looked up (ENOENT) though names_check_create refuses to create it.
 */
int names_check_lookup(const struct cfs *fs, enum cfs_rule rule, const char *name)
{
	uint64_t unused;

	if (rule == CFS_FOLD && fs->opt.strict &&
	    cf_name_hash(&fs->enc, name, strlen(name), &unused) < 0)
		return -EINVAL;
	return check_common(name);
}

/*
 * The index hashes names an adversary may choose, so every rule hashes with
 * the library's keyed SipHash under the mount's secret key.  For bytes that
 * are not to be folded (a normalized name, an invalid one), the bytes are
 * spelled as lowercase letters 'a'..'p', two per byte: a one-to-one spelling
 * that folding leaves unchanged, so the keyed fold hash is a keyed hash of
 * the bytes themselves.
 */
static void keyed_bytes_hash(const struct cfs *fs, const char *s, size_t len,
			     uint64_t *hash)
{
	char spelled[2 * CF_FOLD_MAX];
	size_t n = 0;

	for (size_t i = 0; i < len && n + 2 <= sizeof(spelled); i++) {
		spelled[n++] = (char)('a' + ((unsigned char)s[i] >> 4));
		spelled[n++] = (char)('a' + ((unsigned char)s[i] & 15));
	}
	cf_casefold_hash_keyed(&fs->bytes_enc, fs->hash_key, spelled, n, hash);
}

int names_hash(const struct cfs *fs, enum cfs_rule rule, const char *s, size_t len,
	       uint64_t *hash)
{
	char buf[CF_FOLD_MAX];
	ssize_t n;

	switch (rule) {
	case CFS_FOLD:
		return cf_name_hash_keyed(&fs->enc, fs->hash_key, s, len, hash);
	case CFS_NORMALIZE:
		/* Invalid names are opaque bytes, matched (so hashed) raw. */
		n = cf_normalize(&fs->enc, s, len, buf, sizeof(buf));
		if (n < 0)
			keyed_bytes_hash(fs, s, len, hash);
		else
			keyed_bytes_hash(fs, buf, (size_t)n, hash);
		return 0;
	case CFS_EXACT:
		break;
	}
	keyed_bytes_hash(fs, s, len, hash);
	return 0;
}

bool names_match(const struct cfs *fs, enum cfs_rule rule, const char *a, size_t alen,
		 const char *b, size_t blen)
{
	if (alen == blen && memcmp(a, b, alen) == 0)
		return true;
	switch (rule) {
	case CFS_FOLD:
		return cf_name_match(&fs->enc, a, alen, b, blen) == 1;
	case CFS_NORMALIZE:
		return cf_strcmp(&fs->enc, a, alen, b, blen) == 0;
	case CFS_EXACT:
		break;
	}
	return false;
}
