/* Directory flags and metadata copies, all through descriptors. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <linux/fs.h>
#include <unistd.h>

#include "casefold_ext4.h"
#include "tree/dirmeta.h"

int cli_casefolded(int fd)
{
	/* The kernel reads and writes an int, whatever the ioctl's type says. */
	int flags = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		return -errno;
	/* FS_CASEFOLD_FL, which older kernel headers lack: libcasefold's copy. */
	return ((unsigned)flags & CF_EXT4_CASEFOLD_FL) != 0;
}

int cli_set_casefold(int fd)
{
	int flags = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		return -errno;
	flags = (int)((unsigned)flags | CF_EXT4_CASEFOLD_FL);
	return ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0 ? -errno : 0;
}

/* The value of one attribute, in a buffer grown to fit.  Returns its size. */
static ssize_t get_value(int fd, const char *name, char **buf, size_t *cap)
{
	for (;;) {
		ssize_t n = fgetxattr(fd, name, NULL, 0);
		char *b;

		if (n < 0)
			return -errno;
		if ((size_t)n >= *cap) {
			b = realloc(*buf, (size_t)n + 1);
			if (!b)
				return -ENOMEM;
			*buf = b;
			*cap = (size_t)n + 1;
		}
		n = fgetxattr(fd, name, *buf, *cap);
		/* ERANGE: it grew in between; ask again. */
		if (n >= 0 || errno != ERANGE)
			return n < 0 ? -errno : n;
	}
}

int cli_copy_xattrs(int from, int to, const char **what)
{
	char *names = NULL, *value = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0;

	*what = "listing extended attributes";
	n = flistxattr(from, NULL, 0);
	if (n < 0)
		return errno == ENOTSUP ? 0 : -errno;
	names = malloc((size_t)n + 1);
	if (!names)
		return -ENOMEM;
	n = flistxattr(from, names, (size_t)n);
	if (n < 0)
		err = -errno;
	for (char *p = names; !err && p < names + n; p += strlen(p) + 1) {
		ssize_t len = get_value(from, p, &value, &cap);

		*what = "copying extended attributes";
		if (len == -ENODATA)
			continue; /* removed meanwhile */
		err = len < 0 ? (int)len : fsetxattr(to, p, value, (size_t)len, 0) < 0 ? -errno : 0;
	}
	free(names);
	free(value);
	return err;
}

int cli_copy_owner_mode(int from, int to, const char **what)
{
	struct stat st;

	*what = "owner and mode";
	if (fstat(from, &st) < 0)
		return -errno;
	/* chown first: it clears the set-id bits that chmod then restores. */
	if (fchown(to, st.st_uid, st.st_gid) < 0 || fchmod(to, st.st_mode & 07777) < 0)
		return -errno;
	return 0;
}
