/*
 * casefoldfs — ext4-style per-directory case-insensitivity over any
 * directory tree, as a FUSE 3 low-level daemon: the tree mode.  This header
 * is the mount: the state every request reaches through cfs_of().  Where
 * each rule lives: fs/tree/README.md, the wing's map.
 *
 * Locking, outermost first: a directory's lock (two directories: lower
 * address first), then the table lock, which is never held across a
 * system call that can block on the backing filesystem.  No lock is held
 * while talking to the kernel, so the kernel can never wait on us while we
 * wait on it.
 */
#ifndef CFS_CFS_H
#define CFS_CFS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

#include "common/lowlevel.h"
#include "common/names.h"
#include "tree/inode.h"
#include "tree/locator.h"
#include "tree/super.h"

/* How changes made in the backing tree behind our back are noticed (watch.c). */
enum cfs_watch {
	CFS_WATCH_AUTO,      /* a request only: the best this daemon may use */
	CFS_WATCH_NONE,      /* not at all: everything expires after fs->timeout */
	CFS_WATCH_FANOTIFY,  /* a filesystem mark (root): every change of the tree */
	CFS_WATCH_INOTIFY,   /* a watch per directory the kernel remembers */
};

struct cfs {
	/* Immutable once mounted. */
	struct fk_session *se;
	struct cfs_options opt;
	struct cfs_names names;     /* the naming rule's context */
	bool can_chown;             /* CAP_CHOWN: new entries go to the caller */
	bool keeps_setid;           /* CAP_FSETID: our writes keep set-ID bits (ops_file.c) */
	uid_t euid;                 /* the daemon's own, which never change */
	gid_t egid;
	enum cfs_watch watch;       /* how changes behind our back are noticed */
	double timeout;             /* entries and attributes, unwatched (dcache.c) */
	double watched_timeout;     /* the same, where changes are watched */
	bool no_opendir;            /* the kernel can do without OPENDIR */
	bool no_open;               /* files open without OPEN (local backing) */
	bool flush_writers;         /* FLUSH at a writer's close (backing_local) */
	bool listing_plus;          /* READDIRPLUS (listing_plus, tree_mount.c) */
	bool fine_ctime;            /* multigrain ctimes (fine_ctime, tree_mount.c) */
	bool case_rename;           /* -o case_rename: a case-only rename respells */
	bool casefold_nonempty;     /* -o casefold_nonempty: +F without emptiness */

	struct cfs_epoch dentries;  /* when every dentry expires (dentries.h) */

	struct cfs_nodes nodes;     /* the node table, under its own lock */
	struct cfs_watcher *watcher;  /* NULL when fs->watch is CFS_WATCH_NONE */
};

/* The daemon's state, from a request. */
static inline struct cfs *cfs_of(fk_req_t req)
{
	return fk_req_userdata(req);
}

#endif /* CFS_CFS_H */
