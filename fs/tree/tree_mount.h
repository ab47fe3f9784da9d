/*
 * A tree's mount (tree_mount.c): what the command line asks of it, and its setup
 * as a mode of the daemon (common/mode.h) for main.c to run.
 */
#ifndef CFS_TREE_MOUNT_H
#define CFS_TREE_MOUNT_H

#include <stdint.h>

#include "common/mode.h"

/* What the command line asks of a tree's mount: main.c's fuse_opt fills it. */
struct tree_args {
	const char *backing;
	char *encoding;             /* -o casefold=ENCODING, or NULL */
	int casefold_bare;          /* -o casefold: the default encoding */
	int strict;
	int keep_ignorables;
	int normalize_all;
	int noepoch;                /* never rely on FUSE_NOTIFY_INC_EPOCH */
	int nohandles;              /* path locators only (fs/tree/DESIGN.md) */
	char *flagstore;            /* -o flagstore=trusted|user, or NULL */
	char *cache;                /* -o cache=auto|fanotify|inotify|timeout */
	char *timeout;              /* -o timeout=SECONDS */
	char *opens;                /* -o opens=daemon|kernel */
	int case_rename;            /* issue 21: client behaviour beyond ext4's */
	int casefold_nonempty;
	/* The numbers, as main.c checked them: */
	uint64_t fd_cache;          /* descriptors; 0: the default */
	uint64_t index_mem;         /* MiB; 0: the default */
	uint64_t nfs_nodes;         /* forgotten nodes kept for NFS handles */
};

/*
 * Opens and sets up a's BACKING, raising the descriptor limit first (the
 * descriptor cache takes a share of it): 0 and *mode, or -1 after a
 * message.
 */
int tree_mount(const struct tree_args *a, struct cfs_mode *mode);

#endif /* CFS_TREE_MOUNT_H */
