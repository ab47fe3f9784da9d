/*
 * An overlay view: one case-insensitive directory tree over an ordered
 * list of layers (fs/view/DESIGN.md).  view.c: the nodes the
 * kernel holds, their paths in each layer, merged indexes built on first
 * need; upper.c: everything the view writes in the upper layer (objects made
 * in the work directory and moved into place, copy-up, whiteouts).
 *
 * Locking: the node lock (view.node_lock) guards every node's links, every
 * index and dentry record, and is never held across a system call that can
 * block; a directory's change lock serialises the changes to its names (and
 * the build of its index) and is held across them.  Two change locks are
 * taken only by rename, lower address first; a change lock is taken
 * before the node lock.
 *
 * The memory of all merged indexes is bounded (-o index_mem, as the tree's
 * indexes, fs/view/DESIGN.md): every built index is on a ring,
 * and a build that takes the total over the bound sends a CLOCK hand round
 * it, freeing indexes not used since the hand last passed; the next need
 * rebuilds them from the layers, which is what a remount does.  An index is
 * freed only when nothing refers to it: no request between view_index and
 * view_index_done (busy), no descriptor open on the directory, and not a
 * removed directory's.  The nodes the kernel holds for its names do not
 * keep it: a node keeps its own spelling, layer and parts, and the build
 * that brings the index back hands each of them its entry again, found by
 * its exact spelling (view.c, reattach).
 */
#ifndef CFS_VIEW_H
#define CFS_VIEW_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "common/dentries.h"
#include "common/names.h"
#include "view/layers.h"
#include "view/merge.h"

/*
 * One directory of a layer that a view's directory merges: its spelling
 * in its parent's part `from` (an index into the parent's parts; the
 * root's part i is layer i's root).  A layer may hold several, twins of
 * one group.  Parts are only ever added (copy-up), so an index into them
 * stays valid; they are read in order of layer, then of index.
 */
struct view_part {
	unsigned layer;
	unsigned from;
	char *name;                /* its spelling; NULL: dropped (a moved
				      directory keeps only its upper part) */
};

/* The most parts a directory merges (a part's index fits 16 bits). */
#define VIEW_PARTS_MAX 65535

/* An index retired by a restack while listings were open on it: they go on
 * reading it, so that each is one listing, before or after (restack.c). */
struct view_listing {
	struct merge *index;
	uint64_t gen;              /* the directory's generation it was */
	uint32_t opens;            /* listings still reading it */
	struct view_listing *next;
};

struct view_dir {
	pthread_mutex_t change;    /* the change lock */
	struct merge *index;       /* NULL until first needed; node lock */
	struct view_part *parts;   /* layers holding it, top first; node lock */
	unsigned nparts;
	struct cfs_dcache dcache;  /* what the kernel was handed; node lock */
	struct view_handed *handed;  /* its spellings, but the shown ones
				      (handed.c); node lock */
	struct view_node *kids;    /* nodes naming this one as parent, gone ones
				      too (view_forget keeps dir while any is
				      left); node lock */
	uint32_t busy;             /* requests using the index; node lock */
	bool used;                 /* CLOCK: used since the hand last passed */
	struct view_node *rnext, *rprev;  /* the ring of built indexes */
	bool evicted;              /* an index was freed (the kernel may keep
				      dentries no index records); node lock */
	uint64_t gen;              /* restacks that replaced its index; node lock */
	uint32_t gen_opens;        /* listings open on the current index */
	struct view_listing *old;  /* retired indexes still listed */
	/* During a restack (restack.c): */
	struct view_part *was;     /* its parts before it, if they were replaced */
	unsigned nwas;
	unsigned *corr;            /* which part each of was is now (UINT_MAX:
				      none); NULL: each the same */
	struct view_node *queued;  /* the next directory to read again */
};

/* One object the kernel holds (node lock for every field not immutable). */
struct view_node {
	struct view_node *parent;  /* on parent's kids list */
	struct view_node *sib_prev, *sib_next;  /* that list */
	uint32_t idx;              /* its entry in the parent's index, while the
				      parent has one (not gone) */
	unsigned from;             /* the parent's part holding its object (a
				      directory: its top part) */
	bool gone;                 /* removed from the view */
	uint64_t nlookup;          /* the kernel's references */
	unsigned layer;            /* the layer its object is in (a directory: its
				      top part's): 0 once copied up */
	unsigned char type;        /* DT_*: immutable */
	uint64_t ino;              /* the view's inode number */
	uint32_t opens;            /* files open on it */
	int *readers;              /* of those, the descriptors open on a lower
				      object: copy-up moves them to the copy */
	uint32_t nreaders;
	bool linked;               /* the kernel reaches it by other names too
				      (a link made through the view) */
	int kept;                  /* once gone: its object, O_PATH, if open or
				      linked and not kept by name; else -1 */
	uint64_t kept_name;        /* or N of its name kept.N in the work
				      directory (view_keep); 0: none */
	char *name;                /* its spelling in layer (the view's) */
	struct view_dir *d;        /* directories only: immutable */
	bool in_links;             /* in the view's table of linked files */
	struct view_node *link_next;  /* its chain there */
	struct view_node *all_prev, *all_next;  /* every node but the root */
};

struct view {
	pthread_rwlock_t stack;    /* the layers: every request that reaches
				      them or the nodes holds it shared, a
				      restack exclusive (ovl_ops.c, restack.c) */
	struct layers layers;
	struct cfs_names names;
	struct cfs_epoch dentries;
	pthread_mutex_t node_lock; /* the node lock */
	struct view_node *root;
	struct view_node *all;     /* every other node, for the unmount */
	bool can_chown;            /* new objects go to the caller */
	bool keeps_setid;          /* CAP_FSETID: our writes keep set-ID bits (file.c) */
	double timeout;            /* what the kernel may keep, and how long */
	size_t nodes;              /* nodes alive, root excluded */
	struct view_node **links;  /* upper files with several links, by inode
				      number: one node per object (view_links) */
	size_t nlinks, links_cap;  /* entered, buckets (a power of two) */
	uint64_t kept_names;       /* the last N of a kept.N made; node lock */
	size_t nkept;              /* nodes with a kept name (all in links);
				      node lock */
	atomic_size_t index_bytes; /* all merged indexes' memory */
	size_t index_limit;        /* -o index_mem (set before mounting) */
	size_t index_evictions;    /* indexes freed to stay under it */
	struct view_node *hand;    /* the ring's next to look at; NULL: empty */
};

/* view.c */
int view_init(struct view *v);
void view_destroy(struct view *v);
struct view_node *view_node(struct view *v, uint64_t id);
uint64_t view_id(const struct view *v, const struct view_node *n);
int view_index(struct view *v, struct view_node *dir);
void view_index_done(struct view *v, struct view_node *dir);
struct view_node *view_child(struct view *v, struct view_node *dir, uint32_t idx);
void view_adopt(struct view_node *dir, struct view_node *n);
void view_forget(struct view *v, struct view_node *n, uint64_t count);
void view_opened(struct view *v, struct view_node *n, int delta);
int view_reader_add(struct view *v, struct view_node *n, unsigned layer, int fd);
void view_reader_drop(struct view *v, struct view_node *n, int fd);
void view_readers_move(struct view *v, struct view_node *n);
struct view_node *view_links(struct view *v, struct view_node *n, const struct stat *st);
void view_keep(struct view *v, struct view_node *n, int fd);
void view_keep_fds(struct view *v);
int view_part_path(struct view *v, struct view_node *dir, unsigned part, const char *name,
		   char *buf, size_t len);
int view_upper_part(struct view *v, struct view_node *dir);
bool view_in_upper(const struct view_node *dir);
int view_add_part(struct view_node *dir, unsigned layer, unsigned from, const char *name);
int view_room(struct view *v, struct view_node *dir, size_t len);
int view_open(struct view *v, struct view_node *n, int flags);
int view_stat(struct view *v, struct view_node *n, struct stat *st);
void view_adjust(struct view *v, struct view_node *n, struct stat *st);
void view_lock2(struct view_node *a, struct view_node *b);
uint64_t view_listing_open(struct view *v, struct view_node *dir);
void view_listing_close(struct view *v, struct view_node *dir, uint64_t gen);
struct merge *view_listing_index(struct view_node *dir, uint64_t gen);
/* view.c, for restack.c */
int view_build(struct view *v, struct view_node *dir, struct listing **reuse,
	       struct merge **out);
void view_install(struct view *v, struct view_node *dir, struct merge *m);
int view_set_parts(struct view_node *dir, const struct merge *m, uint32_t idx);
int view_part_path_locked(struct view *v, struct view_node *dir, unsigned part,
			  const char *name, char *buf, size_t len);

/* handed.c (node lock) */
void handed_add(struct view *v, struct view_node *dir, struct cfs_name *given);
bool handed_complete(struct view *v, struct view_node *dir);
void handed_each(struct view *v, struct view_node *dir, uint32_t *keys, size_t n,
		      void (*fn)(void *arg, const char *spelling), void *arg);
void handed_free(struct view_handed *h);

/* restack.c: a mounted view's layers changed (ovl_ops.c's ioctl) */
int view_restack(struct view *v, const struct layer_list *lower, const char *upperdir,
		 const char *workdir, char *err, size_t errlen);
void view_unlock2(struct view_node *a, struct view_node *b);

/* upper.c (the change lock of dir held, but for upper_dir and upper_copy) */
enum upper_over { UPPER_NEW, UPPER_OVER_FILE, UPPER_OVER_DIR };
struct upper_move {
	int fromfd, tofd;
	const char *from, *to;
	const char *old;           /* the whiteout of to's group in tofd, or "" */
	bool replace;              /* an object of to's spelling is replaced */
	bool behind;               /* a whiteout stays at from */
};
int upper_dir(struct view *v, struct view_node *dir);
int upper_copy(struct view *v, struct view_node *n);
int upper_temp(char name[static 32]);
int upper_open(struct view *v, struct view_node *dir, unsigned *part);
int upper_open_part(struct view *v, struct view_node *dir, unsigned part);
int upper_own(struct view *v, const char *tmp, uid_t uid, gid_t gid, mode_t mode);
int upper_move(struct view *v, const struct upper_move *m);
int upper_place(struct view *v, struct view_node *dir, const char *tmp, const char *name,
		uint32_t whiteout, unsigned *part);
int upper_clear_dir(struct view *v, int pfd, const char *name);
int upper_whiteout(struct view *v, struct view_node *dir, unsigned part, const char *name,
		   enum upper_over over);
int upper_discard(struct view *v, struct view_node *dir, unsigned part, const char *name,
		  bool isdir);
int upper_losers(struct view *v, struct view_node *dir, const struct cfs_name *cn,
		 unsigned part, const char *keep);

#endif /* CFS_VIEW_H */
