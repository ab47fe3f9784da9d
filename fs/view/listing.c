/*
 * One part of a merged directory, read: its names with what merging them
 * needs (type, inode number, whiteout or not, the group's key: listing_key), and
 * whether it hides the layers below.  A lower layer's part does not change
 * while the view is mounted (overlayfs's rule), so the index keeps its
 * listing (merge.h, merge_keep), and a restack merges the part again from it
 * instead of reading it: a change of one mod among a thousand then reads
 * the directories of that mod, not the thousand others' (fs/view/DESIGN.md,
 * "Changing the layers").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/util.h"
#include "view/layers.h"
#include "view/listing.h"

/* A listing being read: grown as names come, then made one block. */
struct scratch {
	struct listed *e;
	uint32_t n, cap;
	char *names;
	uint32_t nlen, ncap;
};

/* The key a name is chained by in an index: the fold hash, or for a name
 * strict folding refuses, the hash of its bytes (it matches only itself). */
uint32_t listing_key(const struct cfs_names *nm, struct cfs_name *name)
{
	if (names_hash(nm, CFS_FOLD, name) == 0)
		return (uint32_t)name->hash;
	return (uint32_t)names_spelling(nm, name);
}

/* A name's kind, the byte before its spelling: its DT_* type, and these. */
enum { KIND_WHITEOUT = 0x10, KIND_DOTWH = 0x20 };

/* Appends name (the group's spelling) with what feeding it needs. */
static int add(struct scratch *l, const struct cfs_names *nm, const char *name, uint64_t ino,
	       unsigned char type, bool whiteout, bool dotwh)
{
	size_t len = strlen(name);
	struct cfs_name cn = names_name(name);

	if (len + 2 > UINT32_MAX - l->nlen ||
	    grow_array((void **)&l->e, &l->cap, sizeof(*l->e), l->n + 1) < 0 ||
	    grow_array((void **)&l->names, &l->ncap, 1, l->nlen + (uint32_t)len + 2) < 0)
		return -ENOMEM;
	l->names[l->nlen] = (char)((type & 0x0f) | (whiteout ? KIND_WHITEOUT : 0) |
				   (dotwh ? KIND_DOTWH : 0));
	memcpy(l->names + l->nlen + 1, name, len + 1);
	l->e[l->n++] = (struct listed){ .ino = ino, .key = listing_key(nm, &cn),
					      .name = l->nlen };
	l->nlen += (uint32_t)len + 2;
	return 0;
}

/*
 * The listing as one block of its exact size: indexes keep thousands of
 * them, most of a few names (a mod's part of a folder).
 */
static struct listing *block(const struct scratch *sc, bool opaque)
{
	if (sc->nlen > 0x7fffffff)
		return NULL;
	size_t head = offsetof(struct listing, e), entries = sc->n * sizeof(*sc->e);
	struct listing *l = malloc(head + entries + sc->nlen);

	if (!l)
		return NULL;
	l->n = sc->n;
	l->nlen = sc->nlen & 0x7fffffff;
	l->opaque = opaque;
	if (sc->n)
		memcpy(l->e, sc->e, entries);
	if (sc->nlen)
		memcpy((char *)l + head + entries, sc->names, sc->nlen);
	return l;
}

/*
 * Reads the directory dirfd (open for reading, at its start) into *out.
 * The listing is read with getdents64 straight into one buffer: a merge
 * reads one directory per layer, so each system call saved is saved
 * hundreds of times.  0 or -errno.
 */
int listing_read(const struct cfs_names *nm, int dirfd, struct listing **out)
{
	enum marker_dir md = marker_dir(dirfd);
	_Alignas(struct dirent64) char buf[32768];
	struct scratch sc = { 0 };
	bool opaque = md == MARKER_OPAQUE;
	ssize_t n = 0;
	int r = 0;

	while (r == 0 && (n = getdents64(dirfd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; r == 0 && off < n;) {
			const struct dirent64 *de = (const struct dirent64 *)(buf + off);
			const char *dotwh = marker_dotwh(de->d_name);
			unsigned char type = de->d_type;
			struct stat st;
			bool whiteout;

			off += de->d_reclen;
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			if (dotwh && !*dotwh) {  /* the opaque marker file */
				opaque = true;
				continue;
			}
			whiteout = dotwh || marker_is_whiteout(dirfd, de->d_name, type, md);
			if (type == DT_UNKNOWN &&
			    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
				type = IFTODT(st.st_mode);
			r = add(&sc, nm, dotwh ? dotwh : de->d_name, de->d_ino, type, whiteout,
				dotwh != NULL);
		}
	}
	if (r == 0 && n < 0)
		r = -errno;
	if (r == 0 && !(*out = block(&sc, opaque)))
		r = -ENOMEM;
	free(sc.e);
	free(sc.names);
	return r;
}

/* The spelling of name i of l. */
const char *listing_name(const struct listing *l, uint32_t i)
{
	return (const char *)(l->e + l->n) + l->e[i].name + 1;
}

/* The DT_* type of name i of l, and whether it is a whiteout, and one of
 * the ".wh." form. */
unsigned listing_kind(const struct listing *l, uint32_t i, bool *whiteout, bool *dotwh)
{
	unsigned k = (unsigned char)((const char *)(l->e + l->n))[l->e[i].name];

	*whiteout = k & KIND_WHITEOUT;
	*dotwh = k & KIND_DOTWH;
	return k & 0x0f;
}

void listing_free(struct listing *l)
{
	free(l);
}

size_t listing_memory(const struct listing *l)
{
	return offsetof(struct listing, e) + l->n * sizeof(*l->e) + l->nlen;
}
