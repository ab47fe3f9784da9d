#include <stddef.h>

#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 12)
#include <fuse_lowlevel.h>
#include "kernel/fusermount.h"

/* libfuse's session, with no operation: only its mount options matter. */
static const struct fuse_lowlevel_ops none;

int fk_mount(struct fuse_session **lse, struct fuse_args *args, const char *mountpoint)
{
	*lse = fuse_session_new(args, &none, sizeof(none), NULL);
	if (!*lse)
		return -1;
	if (fuse_session_mount(*lse, mountpoint) != 0) {
		fuse_session_destroy(*lse);
		*lse = NULL;
		return -1;
	}
	return fuse_session_fd(*lse);
}

void fk_unmount(struct fuse_session *lse)
{
	if (!lse)
		return;
	fuse_session_unmount(lse);
	fuse_session_destroy(lse);
}
