/*
 * Where a directory's casefold flag lives: an xattr on the backing
 * directory, in the namespace the superblock names (super.c).
 *
 *   trusted  trusted.casefoldfs.casefold: only CAP_SYS_ADMIN may read or
 *            write it, so no user of the backing tree can flip the flag of
 *            a non-empty directory.  What a root daemon gives a new tree.
 *   user     user.casefoldfs.casefold: what an unprivileged daemon can
 *            write.  Whoever may write a backing directory may also set
 *            this flag on it, but such a user can as well create
 *            fold-equal names there directly: either way the index build
 *            finds the collision and logs it (dirindex.c).
 *
 * The xattr travels with its directory through renames and through copies
 * that keep xattrs (cp -a, rsync -aX, tar --xattrs), which a list kept
 * elsewhere would not.  Both namespaces are ours through the mount, whatever
 * the tree's store: hidden from listxattr, unreadable, unwritable.  One tree
 * per process: the store is chosen once, before any directory is read.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/util.h"
#include "tree/flagstore.h"

static const char *const prefixes[] = {
	[CFS_STORE_TRUSTED] = CFS_TRUSTED_PREFIX,
	[CFS_STORE_USER] = CFS_USER_PREFIX,
};

static const char *const flag_names[] = {
	[CFS_STORE_TRUSTED] = CFS_TRUSTED_PREFIX "casefold",
	[CFS_STORE_USER] = CFS_USER_PREFIX "casefold",
};

static enum cfs_store store = CFS_STORE_TRUSTED;

void flagstore_use(enum cfs_store s)
{
	store = s;
}

const char *flagstore_name(enum cfs_store s)
{
	return s == CFS_STORE_USER ? "user" : "trusted";
}

int flagstore_parse(const char *word, enum cfs_store *s)
{
	if (strcmp(word, "trusted") == 0)
		*s = CFS_STORE_TRUSTED;
	else if (strcmp(word, "user") == 0)
		*s = CFS_STORE_USER;
	else
		return -EINVAL;
	return 0;
}

/*
 * The flag of the directory open as fd (O_PATH will do).  -EACCES when
 * the daemon may not read the directory (user store only: user.* xattrs
 * need read permission, trusted.* ones CAP_SYS_ADMIN, which ignores modes).
 */
int flagstore_get(int fd, bool *on)
{
	char path[32], value[8];

	fd_procpath(fd, path);
	*on = false;
	if (getxattr(path, flag_names[store], value, sizeof(value)) >= 0)
		*on = true;
	else if (errno != ENODATA && errno != ENOTSUP)
		return -errno;
	return 0;
}

static int set_xattr(const char *path, bool on)
{
	if (on ? setxattr(path, flag_names[store], "1", 1, 0) < 0
	       : removexattr(path, flag_names[store]) < 0 && errno != ENODATA)
		return -errno;
	return 0;
}

/*
 * Sets or clears the flag of the directory open as fd.  A user.* xattr
 * needs write permission, where ext4 asks the owner for none: on a
 * directory of the daemon's own without u+w (mkdir -m 555 in a +F
 * directory, chattr +F on one), the daemon lends itself u+w for the one
 * call.  Only its own user could write there meanwhile, who could chmod.
 */
int flagstore_set(int fd, bool on)
{
	char path[32];
	struct stat st;
	int err;

	fd_procpath(fd, path);
	err = set_xattr(path, on);
	if (err != -EACCES || store != CFS_STORE_USER || fstat(fd, &st) < 0 ||
	    st.st_uid != geteuid() || (st.st_mode & S_IWUSR))
		return err;
	if (chmod(path, (st.st_mode & 07777) | S_IWUSR) < 0)
		return err;
	err = set_xattr(path, on);
	if (chmod(path, st.st_mode & 07777) < 0 && err == 0)
		err = -errno;
	return err;
}

/* Any xattr of either store's namespace: never the caller's business. */
bool flagstore_hidden(const char *xattr)
{
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(xattr, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* Is xattr the store's own prefix followed by suffix ("index", "stats")? */
bool flagstore_is(const char *xattr, const char *suffix)
{
	size_t n = strlen(prefixes[store]);

	return strncmp(xattr, prefixes[store], n) == 0 && strcmp(xattr + n, suffix) == 0;
}

/*
 * Can the daemon keep flags on the backing root's filesystem?  0, or a
 * sentence for the log (tmpfs before Linux 6.6 has no user.* xattrs; some
 * network filesystems have neither namespace).
 */
int flagstore_probe(int rootfd, char *msg, size_t len)
{
	char path[32], value[8];

	fd_procpath(rootfd, path);
	if (getxattr(path, flag_names[store], value, sizeof(value)) >= 0 || errno != ENOTSUP)
		return 0;
	snprintf(msg, len, "the backing filesystem keeps no %s.* xattrs: chattr +F will fail "
		 "with EOPNOTSUPP", flagstore_name(store));
	return -ENOTSUP;
}
