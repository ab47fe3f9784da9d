/*
 * Notices: messages the daemon sends unasked, a fuse_out_header whose
 * unique is 0 and whose error field names the notice.  Any descriptor of
 * the session carries them; the mounted one does.
 */
#include <errno.h>
#include <sys/uio.h>

#include "kernel/internal.h"
#include "kernel/notify.h"
#include "kernel/reply.h"

static int notify(struct fk_session *se, int code, const struct iovec *iov, int count)
{
	/* fk_send puts -error in the header: the code goes in negated. */
	return fk_send(se->fd, 0, -code, iov, count);
}

int fk_notify_inval_inode(struct fk_session *se, fk_ino_t ino, off_t off, off_t len)
{
	struct fuse_notify_inval_inode_out o = { .ino = ino, .off = off, .len = len };
	struct iovec iov = { &o, sizeof(o) };

	return notify(se, FUSE_NOTIFY_INVAL_INODE, &iov, 1);
}

int fk_notify_inval_entry(struct fk_session *se, fk_ino_t parent, const char *name,
			  size_t namelen)
{
	struct fuse_notify_inval_entry_out o = { .parent = parent, .namelen = (uint32_t)namelen };
	struct iovec iov[2] = { { &o, sizeof(o) }, { (void *)name, namelen + 1 } };

	return notify(se, FUSE_NOTIFY_INVAL_ENTRY, iov, 2);
}

/* Every dentry of the mount expires at once (Linux 6.16; else -EINVAL). */
int fk_notify_inc_epoch(struct fk_session *se)
{
	return notify(se, FK_NOTIFY_INC_EPOCH, NULL, 0);
}
