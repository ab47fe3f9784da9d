/*
 * The superblock record at the backing root (super.c has the format): the
 * encoding and flags a tree was made with, and where its flags live.
 */
#ifndef CFS_SUPER_H
#define CFS_SUPER_H

#include <stdbool.h>
#include <stddef.h>

#include "common/names.h"
#include "tree/flagstore.h"

#define CFS_SUPER_NAME ".casefoldfs"
#define CFS_SUPER_TMP ".casefoldfs.tmp"

/* Mount options that the superblock records. */
struct cfs_options {
	char encoding[32];   /* canonical encoding name, or "none" */
	bool strict;         /* strict_encoding */
	bool keep_ignorables;
	bool normalize_all;
	enum cfs_store store;  /* where directories' flags live */
};

int super_load(int rootfd, struct cfs_options *opt, const struct cfs_options *given,
	       bool given_encoding, bool given_store, char *err, size_t errlen);
bool super_reserved(const struct cfs_names *nm, enum cfs_rule rule, const char *name);

#endif /* CFS_SUPER_H */
