/*
 * Set-ID bits as ext4 decides them (fs/common/DESIGN.md,
 * "Set-ID bits"), one rule for every handler that clears them.  In the kernel:
 *
 * - a write, truncation or fallocate by a caller without CAP_FSETID
 *   clears the set-user-ID bit, and the set-group-ID bit of a
 *   group-executable file or one whose group is not the caller's
 *   (setattr_should_drop_suidgid);
 * - chown and chgrp, by anyone, root too, clear the set-user-ID bit, and
 *   the set-group-ID bit of a group-executable file or one whose group is
 *   neither the caller's nor kept by CAP_FSETID (setattr_should_drop_sgid;
 *   a set-group-ID file without group-execute is a mandatory-locking
 *   marker, not a privilege);
 * - either becomes a change of the mode (notify_change), which only the
 *   owner or a caller with CAP_FOWNER may make (setattr_prepare): the
 *   clearing is refused with EPERM, and nothing changes, for anyone else —
 *   a write is not refused because the kernel forces it (ATTR_FORCE).
 *
 * Where the mode cannot match ext4, it clears a bit ext4 keeps, never the
 * reverse (the cases are listed in tests/fs/setid_table.sh).
 */
#include <errno.h>
#include <linux/capability.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/caller.h"
#include "common/setid.h"
#include "common/util.h"

#define SETID (S_ISUID | S_ISGID)

/* The bits to clear in mode; keeps_group: the caller may keep the
 * set-group-ID bit of a file that is not group-executable. */
mode_t setid_cleared(mode_t mode, bool keeps_group)
{
	mode_t kill = mode & S_ISUID;

	if ((mode & S_ISGID) && ((mode & S_IXGRP) || !keeps_group))
		kill |= S_ISGID;
	return S_ISREG(mode) ? kill : 0;
}

/* Whether the set-group-ID bit alone decides (the group test matters). */
static bool group_decides(mode_t mode)
{
	return (mode & S_ISGID) && !(mode & S_IXGRP);
}

/*
 * A capability of the caller's.  Root's processes are taken to have it: a
 * user's daemon may not read their capabilities (/proc), and the answer
 * that lets root clear is the one that errs the right way.
 */
static bool capable(fk_req_t req, int cap)
{
	return fk_req_ctx(req)->uid == 0 || caller_capable(req, cap);
}

/* What a write, truncation or fallocate by a caller without CAP_FSETID clears. */
mode_t setid_at_write(fk_req_t req, const struct stat *st)
{
	bool member = group_decides(st->st_mode) && caller_in_group(req, st->st_gid);

	return setid_cleared(st->st_mode, member);
}

/* What a chown or chgrp by the caller clears (the group it leaves). */
mode_t setid_at_chown(fk_req_t req, const struct stat *st)
{
	bool keeps = group_decides(st->st_mode) &&
		     (caller_in_group(req, st->st_gid) || capable(req, CAP_FSETID));

	return setid_cleared(st->st_mode, keeps);
}

/*
 * Whether the caller may write the file: its class's write bit, or
 * CAP_DAC_OVERRIDE, or an access ACL, which may grant it (we do not read
 * the ACL: such a caller is allowed to clear, the direction to err in).
 */
static bool may_write(fk_req_t req, const struct stat *st, const char *path)
{
	const struct fk_ctx *ctx = fk_req_ctx(req);
	mode_t bit = ctx->uid == st->st_uid ? S_IWUSR :
		     caller_in_group(req, st->st_gid) ? S_IWGRP : S_IWOTH;

	return (st->st_mode & bit) || caller_capable(req, CAP_DAC_OVERRIDE) ||
	       getxattr(path, "system.posix_acl_access", NULL, 0) > 0;
}

/*
 * The empty SETATTR: the kernel sends one, under
 * FUSE_HANDLE_KILLPRIV_V2, for chown(f, -1, -1) by anyone, and before a
 * write, fallocate or copy by a caller without CAP_FSETID to a file whose
 * mode it believes has set-ID bits — both look alike.  A caller with
 * CAP_FSETID never sends one at a write, so its SETATTR is a chown.  One
 * without may be either: its owner (or CAP_FOWNER) clears what both would;
 * another caller clears as its write would if it may write the file and
 * the file is open for writing (writing: a write is on its way, and the
 * kernel must not fail it), and is refused otherwise, as ext4 refuses
 * that chown.  Its chown while the file is open for writing therefore
 * clears where ext4 says EPERM.  0 with *kill set (0: nothing), or -EPERM.
 */
int setid_at_touch(fk_req_t req, const struct stat *st, const char *path, bool writing,
		   mode_t *kill)
{
	bool fsetid;

	*kill = 0;
	if (!S_ISREG(st->st_mode) || !(st->st_mode & SETID))
		return 0;
	fsetid = capable(req, CAP_FSETID);
	*kill = fsetid ? setid_at_chown(req, st) : setid_at_write(req, st);
	if (!*kill || fk_req_ctx(req)->uid == st->st_uid || capable(req, CAP_FOWNER))
		return 0;
	if (!fsetid && writing && may_write(req, st, path))
		return 0;
	*kill = 0;
	return -EPERM;
}

/* Whether a SETATTR of these fields clears set-ID bits at all: a chown or
 * truncation the kernel flags (a mode given in the same request says
 * itself what stays), or the empty one (setid_at_touch). */
bool setid_setattr_clears(int valid)
{
	return valid == 0 || ((valid & FATTR_KILL_SUIDGID) && !(valid & FATTR_MODE));
}

/* The bits such a SETATTR clears from the file st describes (path: its
 * name in /proc; writing: it is open for writing): 0 or -EPERM. */
int setid_at_setattr(fk_req_t req, const struct stat *st, int valid, const char *path,
		     bool writing, mode_t *kill)
{
	if (valid & (FATTR_UID | FATTR_GID))
		*kill = setid_at_chown(req, st);
	else if (valid != 0)
		*kill = setid_at_write(req, st);
	else
		return setid_at_touch(req, st, path, writing, kill);
	return 0;
}

/*
 * Gives inode ino's regular file, on which fd is (O_PATH or not), the
 * permission bits mode, set-ID bits cleared, and drops the kernel's copy
 * of the mode, which our change does not otherwise reach (se: the
 * session).  A daemon without CAP_FSETID (fsetid false) that may not
 * change the mode sees the backing filesystem clear them at its own
 * write: its EPERM is no error.  0 or -errno.
 */
int setid_set_mode(struct fk_session *se, fk_ino_t ino, int fd, mode_t mode, bool fsetid)
{
	char path[32];

	fd_procpath(fd, path);
	if (chmod(path, mode) < 0 && (fsetid || errno != EPERM))
		return -errno;
	fk_notify_inval_inode(se, ino, -1, 0);
	return 0;
}

/*
 * After a chown or chgrp (st: the file before, kill: what it clears): the
 * mode ext4 leaves for this caller.  The backing filesystem judged the
 * daemon, not the caller: a user's daemon, without CAP_FSETID, loses a
 * set-group-ID bit there that a caller with it keeps.
 */
int setid_settle(struct fk_session *se, fk_ino_t ino, int fd, const struct stat *st,
		 mode_t kill, bool fsetid)
{
	mode_t want = st->st_mode & 07777 & ~kill;
	struct stat now;

	if (fstat(fd, &now) < 0)
		return -errno;
	return (now.st_mode & 07777) == want ? 0 : setid_set_mode(se, ino, fd, want, fsetid);
}

/*
 * Whether an open of fd's file may be passed through.  A passthrough write
 * never reaches the daemon, which cannot then judge its caller: the
 * backing filesystem judges it, against the credentials the daemon
 * registered the file with (setid_backing_begin).  A file that has set-ID
 * bits when its first open is answered is served by the daemon, which
 * judges every write by its caller, exactly.
 */
bool setid_passes_through(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && !(S_ISREG(st.st_mode) && (st.st_mode & SETID));
}

/*
 * The kernel keeps the credentials of the thread that registers a backing
 * file (FUSE_DEV_IOC_BACKING_OPEN) and writes the file with them.  With
 * CAP_FSETID they would keep set-ID bits that appear after the open (set
 * behind our back, which the kernel's cached mode and S_NOSEC do not
 * show): so this thread drops it from its effective set while it answers
 * an open that may register one.  The backing filesystem then clears the
 * bits at every passthrough write, even a caller's with CAP_FSETID — the
 * direction to err in.  True when the caller must call setid_backing_end.
 */
bool setid_backing_begin(struct caps_sets *saved)
{
	struct caps_sets cut;

	if (caps_get(saved) < 0 || !caps_effective(saved, CAP_FSETID))
		return false;
	cut = *saved;
	caps_drop_effective(&cut, CAP_FSETID);
	return caps_set(&cut) == 0;
}

void setid_backing_end(const struct caps_sets *saved)
{
	/* The permitted set never changed, so raising it again cannot fail. */
	caps_set(saved);
}
