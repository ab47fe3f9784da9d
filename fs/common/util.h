/*
 * Small things every layer of casefoldfs may use.  Nothing here knows of
 * nodes, directories or the mount.
 */
#ifndef CFS_UTIL_H
#define CFS_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The longest name a directory entry may have, as on ext4. */
#define CFS_NAME_MAX 255

/* The default bound on the memory of all name indexes, a tree's or a
 * view's (-o index_mem, in MiB). */
#define CFS_INDEX_MEM_DEFAULT ((size_t)128 << 20)

/*
 * /proc/self/fd/N: reopens the exact object a descriptor holds (O_PATH
 * included), never a path that could have been swapped meanwhile.
 */
static inline void fd_procpath(int fd, char buf[static 32])
{
	snprintf(buf, 32, "/proc/self/fd/%d", fd);
}

/* The attributes a statx of STATX_BASIC_STATS gave, as a struct stat. */
static inline void stat_from_statx(const struct statx *x, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = makedev(x->stx_dev_major, x->stx_dev_minor);
	st->st_ino = x->stx_ino;
	st->st_mode = x->stx_mode;
	st->st_nlink = x->stx_nlink;
	st->st_uid = x->stx_uid;
	st->st_gid = x->stx_gid;
	st->st_rdev = makedev(x->stx_rdev_major, x->stx_rdev_minor);
	st->st_size = (off_t)x->stx_size;
	st->st_blksize = x->stx_blksize;
	st->st_blocks = (blkcnt_t)x->stx_blocks;
	st->st_atim = (struct timespec){ x->stx_atime.tv_sec, x->stx_atime.tv_nsec };
	st->st_mtim = (struct timespec){ x->stx_mtime.tv_sec, x->stx_mtime.tv_nsec };
	st->st_ctim = (struct timespec){ x->stx_ctime.tv_sec, x->stx_ctime.tv_nsec };
}

/*
 * Room for need elements of size bytes in the array *buf, which has room
 * for *cap: the room doubles, from 16, until it is enough, so that
 * appending one at a time costs a constant time each.  0, or -ENOMEM with
 * the array as it was.
 */
static inline int grow_array(void **buf, uint32_t *cap, size_t size, uint32_t need)
{
	uint32_t ncap = *cap ? *cap : 16;
	void *nb;

	while (ncap < need)
		ncap *= 2;
	if (ncap == *cap)
		return 0;
	if (!(nb = realloc(*buf, (size_t)ncap * size)))
		return -ENOMEM;
	*buf = nb;
	*cap = ncap;
	return 0;
}

/* Open files take descriptors beyond the cache's: allow as many as we may. */
static inline void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * A listing of the directory dfd from its start, on a descriptor of its
 * own: fdopendir takes the descriptor it is given and moves its offset,
 * which dfd's other users must not see.  NULL with errno set on failure.
 */
static inline DIR *fd_opendir(int dfd)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dp;

	if (fd < 0)
		return NULL;
	dp = fdopendir(fd);
	if (!dp)
		close(fd);
	return dp;
}

#endif /* CFS_UTIL_H */
