/*
 * The naming rule of a directory.  This is the daemon's only contact with
 * libcasefold's matching: which names are acceptable, which names are the
 * same, and a hash consistent with sameness.  Nothing here folds anything
 * by itself.
 */
#include <errno.h>
#include <string.h>

#include "common/names.h"
#include "common/util.h"

/* The mount's context; returns 0 or a libcasefold error (cf_strerror). */
int names_init(struct cfs_names *nm, const char *encoding, bool strict,
	       bool keep_ignorables, bool normalize_all, const uint64_t key[2])
{
	unsigned flags = (strict ? CF_STRICT : 0) | (keep_ignorables ? CF_KEEP_IGNORABLES : 0);
	int r;

	nm->has_encoding = strcmp(encoding, "none") != 0;
	nm->strict = strict;
	nm->normalize_all = normalize_all;
	memcpy(nm->key, key, sizeof(nm->key));
	if (nm->has_encoding && (r = cf_encoding_load(&nm->enc, encoding, flags)) < 0)
		return r;
	return cf_encoding_load(&nm->bytes_enc, "ascii", 0);
}

enum cfs_rule names_rule(const struct cfs_names *nm, bool casefold)
{
	if (casefold && nm->has_encoding)
		return CFS_FOLD;
	if (nm->normalize_all && nm->has_encoding)
		return CFS_NORMALIZE;
	return CFS_EXACT;
}

/* A request's name, its keys not yet computed. */
struct cfs_name names_name(const char *s)
{
	return (struct cfs_name){ .s = s, .len = strlen(s) };
}

/* Names the kernel should never send, refused before any backing access. */
static int check_common(const struct cfs_name *n)
{
	if (n->len > CFS_NAME_MAX)
		return -ENAMETOOLONG;
	if (n->len == 0 || strcmp(n->s, ".") == 0 || strcmp(n->s, "..") == 0 ||
	    memchr(n->s, '/', n->len))
		return -EINVAL;
	return 0;
}

/*
 * The index hashes names an adversary may choose, so every rule hashes with
 * the library's keyed SipHash under the mount's secret key.  For bytes that
 * are not to be folded (a normalized name, an invalid one), the bytes are
 * spelled as lowercase letters 'a'..'p', two per byte: a one-to-one spelling
 * that folding leaves unchanged, so the keyed fold hash is a keyed hash of
 * the bytes themselves.
 */
static uint64_t keyed_bytes_hash(const struct cfs_names *nm, const char *s, size_t len)
{
	char spelled[2 * CF_FOLD_MAX];
	size_t n = 0;
	uint64_t hash = 0;

	for (size_t i = 0; i < len && n + 2 <= sizeof(spelled); i++) {
		spelled[n++] = (char)('a' + ((unsigned char)s[i] >> 4));
		spelled[n++] = (char)('a' + ((unsigned char)s[i] & 15));
	}
	cf_casefold_hash_keyed(&nm->bytes_enc, nm->key, spelled, n, &hash);
	return hash;
}

/* A keyed hash of n's exact bytes: which spelling, whatever the rule. */
uint64_t names_spelling(const struct cfs_names *nm, struct cfs_name *n)
{
	if (!n->have_spelling) {
		n->spelling = keyed_bytes_hash(nm, n->s, n->len);
		n->have_spelling = true;
	}
	return n->spelling;
}

/*
 * The hash of n under rule.  Under the exact rule it is the spelling's
 * hash itself, so a miss in a plain directory (the index's hash, then the
 * dentry record's) hashes the bytes once.
 */
static int rule_hash(const struct cfs_names *nm, enum cfs_rule rule, struct cfs_name *n,
		     uint64_t *hash)
{
	char buf[CF_FOLD_MAX];
	ssize_t len;

	switch (rule) {
	case CFS_FOLD:
		return cf_name_hash_keyed(&nm->enc, nm->key, n->s, n->len, hash);
	case CFS_NORMALIZE:
		/* Invalid names are opaque bytes, matched (so hashed) raw. */
		len = cf_normalize(&nm->enc, n->s, n->len, buf, sizeof(buf));
		*hash = len < 0 ? names_spelling(nm, n) : keyed_bytes_hash(nm, buf, (size_t)len);
		return 0;
	case CFS_EXACT:
		break;
	}
	*hash = names_spelling(nm, n);
	return 0;
}

/*
 * n's hash under rule, computed on first use: 0 with n->hash set, or
 * -EINVAL for a name the rule cannot hash (strict, not foldable).
 */
int names_hash(const struct cfs_names *nm, enum cfs_rule rule, struct cfs_name *n)
{
	if (n->hashed == 0 || n->rule != rule) {
		n->rule = rule;
		n->hashed = rule_hash(nm, rule, n, &n->hash);
		if (n->hashed == 0)
			n->hashed = 1;
	}
	return n->hashed < 0 ? n->hashed : 0;
}

/* A name about to be created: strict directories store only valid UTF-8. */
int names_check_create(const struct cfs_names *nm, enum cfs_rule rule, struct cfs_name *n)
{
	int err = check_common(n);

	if (err == 0 && rule == CFS_FOLD && nm->strict && cf_validate(&nm->enc, n->s, n->len) < 0)
		err = -EINVAL;
	return err;
}

/*
 * A name being looked up: in a strict +F directory a name the encoding
 * cannot fold is EINVAL, as on Linux, where the lookup fails while hashing
 * the name (d_hash) — before ext4 looks at its length, so a 256-byte name
 * that cannot be folded is EINVAL too.  Which names fold is the library's
 * strict matching rule: a stray continuation byte folds, so such a name is
 * looked up (ENOENT) though names_check_create refuses to create it.  The
 * hash taken for the check is the one the index asks for next.
 */
int names_check_lookup(const struct cfs_names *nm, enum cfs_rule rule, struct cfs_name *n)
{
	if (rule == CFS_FOLD && nm->strict && names_hash(nm, rule, n) < 0)
		return -EINVAL;
	return check_common(n);
}

bool names_match(const struct cfs_names *nm, enum cfs_rule rule, const char *a, size_t alen,
		 const char *b, size_t blen)
{
	if (alen == blen && memcmp(a, b, alen) == 0)
		return true;
	switch (rule) {
	case CFS_FOLD:
		return cf_name_match(&nm->enc, a, alen, b, blen) == 1;
	case CFS_NORMALIZE:
		return cf_normalize_equal(&nm->enc, a, alen, b, blen) == 1;
	case CFS_EXACT:
		break;
	}
	return false;
}
