/*
 * The merged index of one directory of an overlay view (merge.c; the
 * listings it is merged from, listing.h): one
 * entry per group of fold-equal names the view shows there (or hides with
 * a whiteout), from every layer and every twin directory of a layer, keyed
 * by the fold rule's hash, built once from each part's listing and then
 * kept current by the view's own changes (the layers change only through
 * the view while it is mounted).  Callers serialise access (view.h says
 * how).
 */
#ifndef CFS_MERGE_H
#define CFS_MERGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/names.h"
#include "view/layers.h"
#include "view/listing.h"

#define MERGE_NONE UINT32_MAX

enum {
	MERGE_WHITEOUT = 1,  /* a whiteout: hides what is below, never shown */
	MERGE_COVERS = 2,    /* some layer below holds a name of its class: removing
				it needs a whiteout */
	MERGE_CLOSED = 4,    /* no layer further down merges into it */
	MERGE_OPAQUE = 8,    /* a directory made opaque by the view */
	MERGE_FREE = 16,     /* removed: a hole in the entry array */
	MERGE_DOTWH = 32,    /* a whiteout stored as the file ".wh." + name */
	MERGE_CLOSING = 64,  /* closed once the layer being read is read: a
				file or whiteout of the group there, beside the
				directories of that layer that still merge */
	MERGE_UPTWINS = 128, /* the upper layer holds another object of the
				group, hidden by this one (merge_feed) */
};

/*
 * One group shown (or hidden by a whiteout) in the directory.  Its object
 * is the name `name` in the directory's part `from` (an index into the
 * directory node's parts, view.h), in layer `layer`.
 */
struct merge_entry {
	uint64_t ino;        /* the view's inode number (layer_ino) */
	void *node;          /* the view's node for it, or NULL */
	uint32_t hash;       /* the fold rule's hash of the name (its low half) */
	uint32_t name;       /* the spelling shown (merge_name) */
	uint32_t next;       /* next entry of its hash bucket */
	uint32_t lower;      /* the group's other directories merged into it
				(merge_part): its layer's twins, then below */
	uint16_t layer;      /* the top layer holding the group */
	uint16_t from;       /* the directory's part holding the object */
	uint8_t type;        /* DT_* of the object */
	uint8_t flags;       /* MERGE_* */
};

struct merge;

struct merge *merge_new(atomic_size_t *total);
void merge_free(struct merge *m);
int merge_feed(struct merge *m, const struct cfs_names *nm, const struct layers *ls,
	       unsigned layer, unsigned from, const struct listing *l);
int merge_keep(struct merge *m, unsigned from, struct listing *l);
struct listing *merge_take(struct merge *m, unsigned from);
void merge_finish(struct merge *m);
uint32_t merge_merged(const struct merge *m, uint32_t after);
void merge_seal(struct merge *m, uint32_t idx, uint64_t ino);
uint32_t merge_find(const struct merge *m, const struct cfs_names *nm, struct cfs_name *name,
		    uint32_t *whiteout);
uint32_t merge_find_key(const struct merge *m, const struct cfs_names *nm, const char *s,
			uint32_t key);
uint32_t merge_add(struct merge *m, const struct cfs_names *nm, struct cfs_name *name,
		   unsigned layer, unsigned from, unsigned char type, uint64_t ino,
		   unsigned flags);
void merge_remove(struct merge *m, uint32_t idx);
void merge_raise(struct merge *m, uint32_t idx, unsigned from);
void merge_hide(struct merge *m, uint32_t idx, unsigned from);
struct merge_entry *merge_entry(const struct merge *m, uint32_t idx);
const char *merge_name(const struct merge *m, uint32_t idx);
void merge_stored(const struct merge *m, uint32_t idx, char *buf, size_t len);
uint32_t merge_next(const struct merge *m, uint32_t idx);
uint32_t merge_part(const struct merge *m, uint32_t part, unsigned *layer, unsigned *from,
		    const char **name);
void merge_renumber(struct merge *m, const unsigned *map);
bool merge_empty(const struct merge *m);
size_t merge_memory(const struct merge *m);

#endif /* CFS_MERGE_H */
