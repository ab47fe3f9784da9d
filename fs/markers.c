/*
 * overlayfs's markers, the subset this view reads and writes (fs/README.md,
 * "Overlay views"): a whiteout is a character device 0/0, or an empty
 * regular file with the overlay.whiteout xattr inside a directory whose
 * overlay.opaque xattr is "x"; a directory whose overlay.opaque is "y"
 * hides the directories below it.  Both the user. namespace (unprivileged
 * overlayfs, -o userxattr) and trusted. (root's overlayfs) are read; the
 * view writes only what any user can: device 0/0 whiteouts, which Linux
 * lets unprivileged users make since 5.8, and user.overlay.opaque.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <dirent.h>

#include "layers.h"

static const char *const opaque_xattr[] = { "user.overlay.opaque", "trusted.overlay.opaque" };
static const char *const whiteout_xattr[] = { "user.overlay.whiteout",
					      "trusted.overlay.whiteout" };

/* What a directory (open for reading) says of the directories below it. */
enum marker_dir marker_dir(int dirfd)
{
	char v[2];

	for (unsigned i = 0; i < 2; i++) {
		if (fgetxattr(dirfd, opaque_xattr[i], v, sizeof(v)) != 1)
			continue;
		if (v[0] == 'y')
			return MARKER_OPAQUE;
		if (v[0] == 'x')
			return MARKER_XWHITEOUTS;
	}
	return MARKER_PLAIN;
}

/* Whether the entry name of dirfd (of type dtype, from readdir) is a whiteout. */
bool marker_is_whiteout(int dirfd, const char *name, unsigned char dtype, enum marker_dir dir)
{
	struct stat st;
	bool found = false;
	int fd;

	if (dtype != DT_CHR && dtype != DT_UNKNOWN &&
	    !(dtype == DT_REG && dir == MARKER_XWHITEOUTS))
		return false;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	if (S_ISCHR(st.st_mode))
		return st.st_rdev == makedev(0, 0);
	if (!S_ISREG(st.st_mode) || st.st_size != 0 || dir != MARKER_XWHITEOUTS)
		return false;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	for (unsigned i = 0; i < 2 && !found; i++)
		found = fgetxattr(fd, whiteout_xattr[i], NULL, 0) >= 0;
	close(fd);
	return found;
}

/* overlayfs's own xattrs: not shown through the view, nor settable there. */
bool marker_is_ours(const char *xattr)
{
	return strncmp(xattr, "user.overlay.", 13) == 0 ||
	       strncmp(xattr, "trusted.overlay.", 16) == 0;
}

/* Makes the directory name of dirfd opaque. */
int marker_set_opaque(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int r;

	if (fd < 0)
		return -errno;
	r = fsetxattr(fd, opaque_xattr[0], "y", 1, 0) < 0 ? -errno : 0;
	close(fd);
	return r;
}

/* Makes a whiteout named name in dirfd. */
int marker_make_whiteout(int dirfd, const char *name)
{
	return mknodat(dirfd, name, S_IFCHR, makedev(0, 0)) < 0 ? -errno : 0;
}
