/*
 * The inode-flag ioctls, enough for e2fsprogs' chattr and lsattr and for
 * Wine's probe of FS_CASEFOLD_FL.  The kernel forwards FS_IOC_GETFLAGS and
 * FS_IOC_SETFLAGS with a 4-byte payload (not sizeof(long)), chattr insists
 * on FS_IOC_FSGETXATTR too, and chattr -p sets FS_IOC_FSSETXATTR.
 * FS_IOC_GETVERSION and FS_IOC_SETVERSION (lsattr -v, chattr -v) come with
 * the size their number encodes, a long, of which ext4 reads and writes
 * only an int: so do we, and the kernel copies back only what we reply.
 *
 * The casefold bit is ours (the directory's xattr); every other bit is the
 * backing object's own, passed through, so lsattr shows what the backing
 * filesystem has (e.g. ext4's 'e') and chattr +i still works.  The rules
 * for changing the bit are ext4's, checked only when the bit changes:
 * EOPNOTSUPP without an encoding or on a non-directory, ENOTEMPTY unless
 * the directory is empty.  Flags that need a capability are changed with
 * only the capabilities the caller has (caller.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/caller.h"
#include "casefold_ext4.h"
#include "tree/dcache.h"
#include "tree/dir.h"
#include "tree/ops.h"

/*
 * A real descriptor on the backing object, for ioctls O_PATH cannot do:
 * the descriptor or -errno (-ENOTTY: an object without inode flags).
 */
static int open_backing(struct cfs *fs, struct cfs_inode *in)
{
	if (!S_ISREG(in->type) && !S_ISDIR(in->type))
		return -ENOTTY;
	return locator_open(&fs->nodes, in, O_RDONLY | O_NONBLOCK | O_NOCTTY);
}

/*
 * The backing object's flags without the casefold bit: 0 where the backing
 * filesystem has none, but any other failure is an error — a change judged
 * against flags that could not be read could drop +i or +a unchecked.
 */
static int backing_flags(struct cfs *fs, struct cfs_inode *in, unsigned int *flags)
{
	int fd = open_backing(fs, in), v = 0, err = 0;

	*flags = 0;
	if (fd == -ENOTTY)
		return 0;
	if (fd < 0)
		return fd;
	if (ioctl(fd, FS_IOC_GETFLAGS, &v) < 0)
		err = errno == ENOTTY || errno == EOPNOTSUPP ? 0 : -errno;
	close(fd);
	*flags = (unsigned int)v & ~CF_EXT4_CASEFOLD_FL;
	return err;
}

/*
 * An ioctl that changes the backing object's flags, made with no capability
 * the caller lacks (caller.c): the backing kernel judges the change against
 * the flags the object has when it acts, not those we reported earlier.
 */
static int set_as_caller(fk_req_t req, int fd, unsigned long cmd, void *arg)
{
	struct caller_caps saved;
	int err = caller_caps_begin(req, &saved);

	if (err < 0)
		return err;
	if (ioctl(fd, cmd, arg) < 0)
		err = errno == ENOTTY ? -EOPNOTSUPP : -errno;
	caller_caps_end(&saved);
	return err;
}

static int set_backing_flags(fk_req_t req, struct cfs_inode *in, unsigned int flags)
{
	int fd = open_backing(cfs_of(req), in), v = (int)flags, err;

	if (fd < 0)
		return fd == -ENOTTY ? -EOPNOTSUPP : fd;
	err = set_as_caller(req, fd, FS_IOC_SETFLAGS, &v);
	close(fd);
	return err;
}

static int get_flags(struct cfs *fs, struct cfs_inode *in, unsigned int *flags)
{
	int err = backing_flags(fs, in, flags);

	if (err < 0 || !in->d)
		return err;
	err = dir_lock(fs, in);
	if (err < 0)
		return err;
	err = dir_check_flag(fs, in);
	if (in->d->casefold)
		*flags |= CF_EXT4_CASEFOLD_FL;
	dir_unlock(fs, in);
	return err;
}

/*
 * Whether the casefold bit of the directory in may change now (lock held):
 * ext4's rule, or with -o casefold_nonempty, +F on a non-empty directory
 * whose names stay distinct under folding (dir_may_casefold).
 */
static int may_change_casefold(struct cfs *fs, struct cfs_inode *in, bool on)
{
	int r;

	if (!fs->names.has_encoding)
		return -EOPNOTSUPP;
	r = dir_is_empty(fs, in);
	if (r < 0)
		return r;
	if (r)
		return 0;
	return on && fs->casefold_nonempty ? dir_may_casefold(fs, in) : -ENOTEMPTY;
}

/*
 * A directory's flags: the directory lock makes the emptiness check and the
 * change one step.  Everything that can refuse is checked before anything
 * changes, and the casefold bit, stored last, undoes the other bits if it
 * cannot be stored: an error leaves the flags as they were.  A changed rule
 * expires the kernel's dentries (dcache.c).
 */
static int set_dir_flags(fk_req_t req, struct cfs_inode *in, bool on, unsigned int rest,
			 unsigned int old)
{
	struct cfs *fs = cfs_of(req);
	bool toggle;
	int err = dir_lock(fs, in);

	if (err < 0)
		return err;
	err = dir_check_flag(fs, in);
	toggle = on != in->d->casefold;
	if (err == 0 && toggle)
		err = may_change_casefold(fs, in, on);
	if (err == 0 && rest != old)
		err = set_backing_flags(req, in, rest);
	if (err == 0 && toggle) {
		err = dir_store_flag(in, on);
		if (err < 0 && rest != old)
			set_backing_flags(req, in, old);
		else if (err == 0)
			dcache_rule_changed(fs);
	}
	dir_unlock(fs, in);
	return err;
}

/*
 * The other bits are set whenever they differ from the backing object's:
 * even when the caller's request leaves them as we reported them, the
 * object may have changed since (the backing kernel checks the change).
 */
static int set_flags(fk_req_t req, struct cfs_inode *in, unsigned int flags)
{
	bool on = flags & CF_EXT4_CASEFOLD_FL;
	unsigned int old, rest = flags & ~CF_EXT4_CASEFOLD_FL;
	int err = backing_flags(cfs_of(req), in, &old);

	if (err < 0)
		return err;
	if (in->d)
		return set_dir_flags(req, in, on, rest, old);
	if (on)
		return -EOPNOTSUPP;
	return rest != old ? set_backing_flags(req, in, rest) : 0;
}

/* Linux 7.2's xflag for a casefolded directory, which nfsd and ksmbd read. */
#ifndef FS_XFLAG_CASEFOLD
#define FS_XFLAG_CASEFOLD 0x00040000
#endif

/*
 * Project quota fields and xflags come from the backing object: zeros where
 * it has none, but an object that cannot be opened is an error.  The
 * backing filesystem's own FS_XFLAG_CASEFOLD means nothing here: the bit is
 * ours, set for a +F directory (issue 21: Linux 7.2 tells NFS and SMB
 * clients a directory is case-insensitive from it).  A backing filesystem
 * without the ioctl gives zeros, never an error: nfsd fails the client's
 * request on one (EIO only from a real I/O error of the backing tree).
 */
static int get_fsxattr(struct cfs *fs, struct cfs_inode *in, struct fsxattr *fa)
{
	int fd = open_backing(fs, in), err = 0;

	memset(fa, 0, sizeof(*fa));
	if (fd < 0 && fd != -ENOTTY)
		return fd;
	if (fd >= 0 && ioctl(fd, FS_IOC_FSGETXATTR, fa) < 0)
		memset(fa, 0, sizeof(*fa));
	if (fd >= 0)
		close(fd);
	fa->fsx_xflags &= ~(unsigned int)FS_XFLAG_CASEFOLD;
	if (!in->d)
		return 0;
	err = dir_lock(fs, in);
	if (err < 0)
		return err;
	err = dir_check_flag(fs, in);
	if (in->d->casefold)
		fa->fsx_xflags |= FS_XFLAG_CASEFOLD;
	dir_unlock(fs, in);
	return err;
}

/*
 * FS_IOC_FSSETXATTR (chattr -p, xfs_io chattr): passed to the backing
 * object with the same capability rule as FS_IOC_SETFLAGS.  The casefold
 * bit (FS_XFLAG_CASEFOLD) is never passed on, so this never changes it.
 */
static int set_fsxattr(fk_req_t req, struct cfs_inode *in, struct fsxattr *fa)
{
	int fd = open_backing(cfs_of(req), in), err;

	/* Ours, and changed only by FS_IOC_SETFLAGS: a read-modify-write
	 * (chattr -p) hands it back, the backing object must not get it. */
	fa->fsx_xflags &= ~(unsigned int)FS_XFLAG_CASEFOLD;

	if (fd < 0)
		return fd == -ENOTTY ? -EOPNOTSUPP : fd;
	err = set_as_caller(req, fd, FS_IOC_FSSETXATTR, fa);
	close(fd);
	return err;
}

/*
 * The generation of the backing object (i_generation): anyone who has the
 * file open may read it, as on ext4.
 */
static int get_version(struct cfs *fs, struct cfs_inode *in, int *gen)
{
	int fd = open_backing(fs, in), v[2] = { 0, 0 }, err = 0;

	if (fd < 0)
		return fd;
	if (ioctl(fd, FS_IOC_GETVERSION, v) < 0)
		err = -errno;
	close(fd);
	*gen = v[0];
	return err;
}

/*
 * Setting it is for the owner or CAP_FOWNER (caller.c); the object's file
 * handle changes with it, so the node takes the new one.
 */
static int set_version(fk_req_t req, struct cfs_inode *in, int gen)
{
	struct cfs *fs = cfs_of(req);
	int fd = open_backing(fs, in), v[2] = { gen, 0 }, err;

	if (fd < 0)
		return fd;
	err = caller_ioctl_owner(req, fd, FS_IOC_SETVERSION, v);
	if (err == 0)
		inode_rehandle(&fs->nodes, in, fd);
	close(fd);
	return err;
}

void op_ioctl(fk_req_t req, fk_ino_t ino, unsigned int cmd, void *arg,
	       struct fk_file_info *fi, unsigned flags, const void *in_buf,
	       size_t in_bufsz, size_t out_bufsz)
{
	struct cfs *fs = cfs_of(req);
	struct cfs_inode *in = ids_node(&fs->nodes, ino);
	unsigned int v;
	struct fsxattr fa;
	int err, gen;

	(void)arg;
	(void)fi;
	if (flags & FUSE_IOCTL_COMPAT) {
		fk_reply_err(req, ENOSYS);
		return;
	}
	switch (cmd) {
	case FS_IOC_GETFLAGS:
		if (out_bufsz < sizeof(v))
			break;
		err = get_flags(fs, in, &v);
		if (err < 0)
			fk_reply_err(req, -err);
		else
			fk_reply_ioctl(req, 0, &v, sizeof(v));
		return;
	case FS_IOC_SETFLAGS:
		if (in_bufsz < sizeof(v))
			break;
		memcpy(&v, in_buf, sizeof(v));
		err = set_flags(req, in, v);
		if (err < 0)
			fk_reply_err(req, -err);
		else
			fk_reply_ioctl(req, 0, NULL, 0);
		return;
	case FS_IOC_FSGETXATTR:
		if (out_bufsz < sizeof(fa))
			break;
		err = get_fsxattr(fs, in, &fa);
		if (err < 0)
			fk_reply_err(req, -err);
		else
			fk_reply_ioctl(req, 0, &fa, sizeof(fa));
		return;
	case FS_IOC_FSSETXATTR:
		if (in_bufsz < sizeof(fa))
			break;
		memcpy(&fa, in_buf, sizeof(fa));
		err = set_fsxattr(req, in, &fa);
		if (err < 0)
			fk_reply_err(req, -err);
		else
			fk_reply_ioctl(req, 0, NULL, 0);
		return;
	case FS_IOC_GETVERSION:
		if (out_bufsz < sizeof(gen))
			break;
		err = get_version(fs, in, &gen);
		if (err < 0)
			fk_reply_err(req, -err);
		else
			fk_reply_ioctl(req, 0, &gen, sizeof(gen));
		return;
	case FS_IOC_SETVERSION:
		if (in_bufsz < sizeof(gen))
			break;
		memcpy(&gen, in_buf, sizeof(gen));
		err = set_version(req, in, gen);
		if (err < 0)
			fk_reply_err(req, -err);
		else
			fk_reply_ioctl(req, 0, NULL, 0);
		return;
	default:
		fk_reply_err(req, ENOTTY);
		return;
	}
	fk_reply_err(req, EINVAL);
}
