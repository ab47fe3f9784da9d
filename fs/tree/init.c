#include "tree/ops.h"

/*
 * What the kernel and the daemon agree on at mount time.
 *
 * Files opened without OPEN (fs->no_open; fs/tree/DESIGN.md, "File data"): the
 * kernel then keeps a file's pages across opens, and O_TRUNC must reach us
 * as a SETATTR, so the daemon does not ask to truncate in OPEN
 * (FUSE_ATOMIC_O_TRUNC).  A file's cached pages are dropped when its
 * attributes show a new mtime or size (FUSE_AUTO_INVAL_DATA).  Reads and
 * writes go through the daemon's buffer (fk_reply_fd, fk_reply_pwrite), or
 * where root's daemon may, not through the daemon at all (passthrough,
 * fs/kernel/backing.c).
 *
 * Listings need no per-open state (readdir.c): where the kernel can do
 * without OPENDIR, every opendir is spared its OPENDIR and RELEASEDIR.
 * They are READDIRPLUS where the backing filesystem's offsets allow
 * (fs->listing_plus).
 *
 * POSIX ACLs: with FUSE_POSIX_ACL the kernel reads a file's ACLs
 * through getxattr and enforces them in its permission checks
 * (default_permissions), as ext4 does.  FUSE_DONT_MASK leaves the umask
 * to the daemon, which applies it only where the parent has no default ACL:
 * as on Linux, a default ACL replaces the umask (ops_dir.c).
 *
 * Set-user-ID and set-group-ID bits are the kernel's to kill: the session
 * never asks for FUSE_HANDLE_KILLPRIV (fs/kernel/handshake.c; tests/fs/acl.sh
 * checks one case).
 */
void op_init(void *userdata, struct fk_conn *conn)
{
	struct cfs *fs = userdata;

	fs->no_opendir = conn->capable & FUSE_NO_OPENDIR_SUPPORT;
	fs->no_open = fs->no_open && (conn->capable & FUSE_NO_OPEN_SUPPORT);
	fs->nodes.hold_all = fs->no_open;
	if (fs->no_open)
		conn->want &= ~FUSE_ATOMIC_O_TRUNC;
	if (!fs->listing_plus)
		conn->want &= ~(FUSE_DO_READDIRPLUS | FUSE_READDIRPLUS_AUTO);
	if (conn->capable & FUSE_AUTO_INVAL_DATA)
		conn->want |= FUSE_AUTO_INVAL_DATA;
	if (conn->capable & FUSE_POSIX_ACL)
		conn->want |= FUSE_POSIX_ACL;
	if (conn->capable & FUSE_DONT_MASK)
		conn->want |= FUSE_DONT_MASK;
	/* NFS export (issue 21): LOOKUP of "." and ".." (ops_dir.c). */
	if (conn->capable & FUSE_EXPORT_SUPPORT)
		conn->want |= FUSE_EXPORT_SUPPORT;
}
