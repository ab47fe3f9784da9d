/*
 * An overlay view's mount (view_mount.c): what the command line asks of it, and
 * its setup as a mode of the daemon (common/mode.h) for main.c to run.
 */
#ifndef CFS_VIEW_MOUNT_H
#define CFS_VIEW_MOUNT_H

#include <stdint.h>

#include "common/mode.h"

struct view_args {
	const char *lowerdir;       /* its layers, top first, ':' between */
	const char *layers;         /* or a file of them, one a line (-o layers) */
	const char *upperdir;       /* or NULL: a read-only view */
	const char *workdir;
	const char *mountpoint;
	const char *label;          /* SOURCE, shown as the source; or NULL */
	const char *encoding;       /* or NULL: the default */
	int strict;
	int keep_ignorables;
	int noepoch;                /* never rely on FUSE_NOTIFY_INC_EPOCH */
	uint64_t index_mem;         /* -o index_mem, MiB; 0: the default */
};

/*
 * Opens and checks the layers and sets up the view, then raises the
 * descriptor limit: 0 and *mode, or -1 after a message.
 */
int view_mount(const struct view_args *a, struct cfs_mode *mode);

#endif /* CFS_VIEW_MOUNT_H */
