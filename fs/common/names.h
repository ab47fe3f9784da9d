/*
 * The naming rule of a directory: which names are acceptable, which names
 * are the same, and a hash consistent with sameness.  This layer is the
 * daemon's one contact with libcasefold's matching rule (names.c); nothing
 * above it folds or compares names by itself.
 */
#ifndef CFS_NAMES_H
#define CFS_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "casefold.h"

/* How names compare inside one directory. */
enum cfs_rule {
	CFS_EXACT,     /* byte for byte: a plain directory */
	CFS_FOLD,      /* cf_name_match: a casefolded (+F) directory */
	CFS_NORMALIZE, /* canonical equivalence only: plain dirs, normalize_all */
};

/* The mount's naming context, fixed once mounted. */
struct cfs_names {
	bool has_encoding;      /* false when the tree's encoding is "none" */
	bool strict;            /* strict_encoding */
	bool normalize_all;
	cf_encoding enc;        /* valid when has_encoding */
	cf_encoding bytes_enc;  /* "ascii", for hashing bytes */
	uint64_t key[2];        /* secret per mount: index hashes (getrandom) */
};

/*
 * A name as one request carries it through the layers: its bytes, and its
 * keys, each computed at most once — the rule's hash for the index, and
 * the hash of its exact bytes for the dentry-cache records.
 */
struct cfs_name {
	const char *s;
	size_t len;
	enum cfs_rule rule;     /* the rule hash was taken under */
	int hashed;             /* 0: not yet; 1: hash valid; -errno: unhashable */
	bool have_spelling;
	uint64_t hash;
	uint64_t spelling;
};

int names_init(struct cfs_names *nm, const char *encoding, bool strict,
	       bool keep_ignorables, bool normalize_all, const uint64_t key[2]);
enum cfs_rule names_rule(const struct cfs_names *nm, bool casefold);
struct cfs_name names_name(const char *s);
int names_hash(const struct cfs_names *nm, enum cfs_rule rule, struct cfs_name *n);
uint64_t names_spelling(const struct cfs_names *nm, struct cfs_name *n);
int names_check_create(const struct cfs_names *nm, enum cfs_rule rule, struct cfs_name *n);
int names_check_lookup(const struct cfs_names *nm, enum cfs_rule rule, struct cfs_name *n);
bool names_match(const struct cfs_names *nm, enum cfs_rule rule, const char *a, size_t alen,
		 const char *b, size_t blen);

#endif /* CFS_NAMES_H */
