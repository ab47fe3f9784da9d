/*
 * The layers of an overlay view (fs/view/DESIGN.md): the
 * writable upper layer and its work directory, the read-only lower layers,
 * and overlayfs's markers in them (layers.c: opening and checking the
 * layers, and reaching an object inside one without leaving it; markers.c:
 * whiteouts and opaque directories).  Nothing here knows of names' rules,
 * nodes or FUSE.
 */
#ifndef CFS_LAYERS_H
#define CFS_LAYERS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The most layers one view stacks: a layer number fits 16 bits (merge.h)
 * and one is kept for LAYER_NONE. */
#define LAYERS_MAX 65535
/* No layer (a layer removed by layers_restack's map). */
#define LAYER_NONE (UINT_MAX - 1)
/* layer_open's layer for the work directory (WORKDIR/work). */
#define LAYER_WORK UINT_MAX

/* One layer: layer 0 is the upper layer when the view has one. */
struct layer {
	int fd;             /* the layer's root, O_PATH */
	dev_t dev;
	ino_t ino;          /* of its root: which layer it is, across a restack */
	unsigned dev_index; /* which of the view's distinct filesystems */
	char *path;
	char *real;         /* its real path (the overlap check's) */
	bool borrowed;      /* fd is old layer `from`'s of the stack restacked,
			       until layers_handover */
	unsigned from;
};

struct layers {
	struct layer *l;
	unsigned n;
	dev_t *devtab;      /* the distinct filesystems, in order of appearance
			       (dev_index); kept across layers_restack */
	unsigned devs;
	bool upper;         /* l[0] is writable */
	int workfd;         /* WORKDIR/work, on the upper's filesystem; -1: none */
	char *workdir;      /* WORKDIR, real path; or NULL */
	char *mountpoint;   /* real path: no layer may hold it */
};

/* The lower layers' paths, top first: a lowerdir string's or a layers file's. */
struct layer_list {
	char **path;
	unsigned n;
};

int layer_list_parse(struct layer_list *ll, const char *lowerdir, char *err, size_t errlen);
int layer_list_read(struct layer_list *ll, const char *file, char *err, size_t errlen);
void layer_list_free(struct layer_list *ll);
int layers_open(struct layers *ls, const struct layer_list *lower, const char *upperdir,
		const char *workdir, const char *mountpoint, char *err, size_t errlen);
int layers_restack(const struct layers *old, const struct layer_list *lower,
		   const char *upperdir, const char *workdir, struct layers *ls, unsigned *map,
		   char *err, size_t errlen);
void layers_handover(struct layers *old, struct layers *ls);
void layers_close(struct layers *ls);
int layer_open(const struct layers *ls, unsigned layer, const char *path, int flags,
	       mode_t mode);
uint64_t layer_ino(const struct layers *ls, unsigned layer, ino_t ino);
int layer_tempname(char buf[static 32]);
int layer_clear_work(int workfd, const char *name);
void layer_empty(int dirfd);

/* markers.c: overlayfs's whiteouts and opaque directories. */
enum marker_dir {
	MARKER_PLAIN,       /* merges with the directories below */
	MARKER_OPAQUE,      /* hides the directories below ("y") */
	MARKER_XWHITEOUTS,  /* may hold xattr whiteouts ("x") */
};
enum marker_dir marker_dir(int dirfd);
bool marker_opaque(int dirfd);
bool marker_is_whiteout(int dirfd, const char *name, unsigned char dtype,
			enum marker_dir dir);
bool marker_is_ours(const char *xattr);
const char *marker_dotwh(const char *name);
int marker_set_opaque(int dirfd_rw, const char *name);
int marker_make_whiteout(int dirfd, const char *name);

#endif /* CFS_LAYERS_H */
