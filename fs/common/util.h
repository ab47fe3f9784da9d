/*
 * Small things every layer of casefoldfs may use.  Nothing here knows of
 * nodes, directories or the mount.
 */
#ifndef CFS_UTIL_H
#define CFS_UTIL_H

#include <stdio.h>

/* The longest name a directory entry may have, as on ext4. */
#define CFS_NAME_MAX 255

/*
 * /proc/self/fd/N: reopens the exact object a descriptor holds (O_PATH
 * included), never a path that could have been swapped meanwhile.
 */
static inline void fd_procpath(int fd, char buf[static 32])
{
	snprintf(buf, 32, "/proc/self/fd/%d", fd);
}

#endif /* CFS_UTIL_H */
