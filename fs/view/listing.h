/*
 * One part of a merged directory of an overlay view, as read (listing.c):
 * its names with what merging them needs, and whether it hides the layers
 * below.  An index keeps the listings of its lower layers' parts
 * (merge.h, merge_keep), which do not change while the view is mounted,
 * so that a restack merges the directory again without reading them.
 */
#ifndef CFS_LISTING_H
#define CFS_LISTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/names.h"

/* One name of a part of the directory, as read (listing_read). */
struct listed {
	uint64_t ino;        /* in its layer's filesystem */
	uint32_t key;        /* its group's (listing_key) */
	uint32_t name;       /* its kind and its group's spelling (a ".wh."
				whiteout's target): listing_kind, _name */
};

/* A part of the directory, as read: one block, each name's kind and
 * spelling after e (16 bytes a name, and its spelling's and one more). */
struct listing {
	uint32_t n;
	uint32_t nlen : 31;  /* the kinds' and spellings' bytes */
	uint32_t opaque : 1; /* it hides the layers below */
	struct listed e[];
};

uint32_t listing_key(const struct cfs_names *nm, struct cfs_name *name);
int listing_read(const struct cfs_names *nm, int dirfd, struct listing **out);
const char *listing_name(const struct listing *l, uint32_t i);
unsigned listing_kind(const struct listing *l, uint32_t i, bool *whiteout, bool *dotwh);
void listing_free(struct listing *l);
size_t listing_memory(const struct listing *l);

#endif /* CFS_LISTING_H */
