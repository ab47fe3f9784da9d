/*
 * overlayfs's markers, the subset this view reads and writes (fs/view/DESIGN.md): a whiteout is a character device 0/0, or an empty
 * regular file with the overlay.whiteout xattr inside a directory whose
 * overlay.opaque xattr is "x"; a directory whose overlay.opaque is "y"
 * hides the directories below it.  Both the user. namespace (unprivileged
 * overlayfs, -o userxattr) and trusted. (root's overlayfs) are read; the
 * view writes only what any user can: device 0/0 whiteouts, which Linux
 * lets unprivileged users make since 5.8, and user.overlay.opaque.
 *
 * Read too, so that an upper layer fuse-overlayfs wrote can be stacked:
 * its user.fuseoverlayfs.opaque, and the aufs/OCI files it falls back to,
 * ".wh.NAME" (NAME is whited out) and ".wh..wh..opq" (the directory is
 * opaque).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <dirent.h>

#include "view/layers.h"

static const char *const opaque_xattr[] = { "user.overlay.opaque", "trusted.overlay.opaque",
					    "user.fuseoverlayfs.opaque" };
static const char opaque_file[] = ".wh..wh..opq";
static const char whiteout_prefix[] = ".wh.";
static const char *const whiteout_xattr[] = { "user.overlay.whiteout",
					      "trusted.overlay.whiteout" };

/*
 * What a directory (open for reading) says of the directories below it, by
 * its extended attributes: one call lists them, and most directories have
 * none.  (The ".wh..wh..opq" file is seen in the directory's listing.)
 */
enum marker_dir marker_dir(int dirfd)
{
	char names[1024], v[2];
	ssize_t n = flistxattr(dirfd, names, sizeof(names));

	if (n == 0 || (n < 0 && errno != ERANGE))
		return MARKER_PLAIN;
	for (unsigned i = 0; i < 3; i++) {
		if (n > 0 && !memmem(names, (size_t)n, opaque_xattr[i], strlen(opaque_xattr[i]) + 1))
			continue;
		if (fgetxattr(dirfd, opaque_xattr[i], v, sizeof(v)) != 1)
			continue;
		if (v[0] == 'y')
			return MARKER_OPAQUE;
		if (v[0] == 'x')
			return MARKER_XWHITEOUTS;
	}
	return MARKER_PLAIN;
}

/* Whether the directory (open for reading) is opaque, by any marker. */
bool marker_opaque(int dirfd)
{
	return faccessat(dirfd, opaque_file, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
	       marker_dir(dirfd) == MARKER_OPAQUE;
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

/*
 * For a name of the aufs/OCI form, what it stands for: "" for the opaque
 * marker, NAME for a whiteout ".wh.NAME"; NULL for any other name.
 */
const char *marker_dotwh(const char *name)
{
	if (strncmp(name, whiteout_prefix, sizeof(whiteout_prefix) - 1) != 0)
		return NULL;
	if (strcmp(name, opaque_file) == 0)
		return "";
	return name + sizeof(whiteout_prefix) - 1;
}

/* overlayfs's own xattrs: not shown through the view, nor settable there. */
bool marker_is_ours(const char *xattr)
{
	return strncmp(xattr, "user.overlay.", 13) == 0 ||
	       strncmp(xattr, "trusted.overlay.", 16) == 0 ||
	       strncmp(xattr, "user.fuseoverlayfs.", 19) == 0;
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
