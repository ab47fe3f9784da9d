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

static int inval_entry(struct fk_session *se, fk_ino_t parent, const char *name,
		       size_t namelen, uint32_t flags)
{
	struct fuse_notify_inval_entry_out o = { .parent = parent, .namelen = (uint32_t)namelen,
						 .flags = flags };
	struct iovec iov[2] = { { &o, sizeof(o) }, { (void *)name, namelen + 1 } };

	return notify(se, FUSE_NOTIFY_INVAL_ENTRY, iov, 2);
}

int fk_notify_inval_entry(struct fk_session *se, fk_ino_t parent, const char *name,
			  size_t namelen)
{
	return inval_entry(se, parent, name, namelen, 0);
}

/*
 * The dentry only expires (FUSE_EXPIRE_ONLY, 7.38, Linux 6.2; an older
 * kernel invalidates it): its next use looks it up again, and finds
 * another node if it changed, but nothing is unhashed or freed now — a
 * fifth of the cost of thousands of them (a view's profile switch, 9,310:
 * 10 ms against 50).  What hangs below a directory's stays reachable by a
 * walk that does not pass through it (a working directory inside).
 */
int fk_notify_expire_entry(struct fk_session *se, fk_ino_t parent, const char *name,
			   size_t namelen)
{
	return inval_entry(se, parent, name, namelen, FUSE_EXPIRE_ONLY);
}

/* Every dentry of the mount expires at once (Linux 6.16; else -EINVAL). */
int fk_notify_inc_epoch(struct fk_session *se)
{
	return notify(se, FK_NOTIFY_INC_EPOCH, NULL, 0);
}

/*
 * Whether the kernel knows fk_notify_inc_epoch: it spoke 7.44 at INIT.
 * Asked before INIT (no request comes before it), the answer is no.
 */
bool fk_notify_has_epoch(const struct fk_session *se)
{
	return se->conn.proto_minor >= FK_MINOR_INC_EPOCH;
}
