/*
 * casefoldfs — ext4-style per-directory case-insensitivity over any
 * directory tree, as a FUSE 3 low-level daemon.  This header is the mount:
 * the state every request reaches through cfs_of().  The layers below it,
 * bottom-up (fs/README.md has the map):
 *
 *   util.h lowlevel.h      small helpers; libfuse's API version
 *   flagstore caps caller  where flags live; what the daemon and the caller may do
 *   super names            the superblock record; the naming rule (libcasefold)
 *   dentries               the kernel's dentries: records and the epoch
 *   fdcache                the bounded CLOCK cache of backing descriptors
 *   dirindex dirpark       per-directory name index; indexes of forgotten dirs
 *   inode locator          nodes: table, locators, pin/open/reopen/hold
 *   (cfs.h)                the mount
 *   dir                    one directory: lock, flag, name resolution
 *   dcache                 what the kernel may cache, and when it must forget
 *   ops_dir readdir ops_file ioctl   the requests; ops.c fills the table
 *   main                   command line, mount, session loop
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
	uid_t euid;                 /* the daemon's own, which never change */
	gid_t egid;
	enum cfs_watch watch;       /* how changes behind our back are noticed */
	double timeout;             /* entries and attributes, unwatched (cache.c) */
	double watched_timeout;     /* the same, where changes are watched */
	bool no_opendir;            /* the kernel can do without OPENDIR */
	bool no_open;               /* files open without OPEN (local backing) */
	bool flush_writers;         /* FLUSH at a writer's close (backing_local) */
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
