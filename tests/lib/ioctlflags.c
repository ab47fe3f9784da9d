/*
 * The inode-flag ioctls as clients make them (issue 21), for the tests.
 *
 *   ioctlflags proton DIR    Proton's sequence: open the directory,
 *                            FS_IOC_GETFLAGS, OR in FS_CASEFOLD_FL
 *                            (0x40000000), FS_IOC_SETFLAGS; prints OK or
 *                            the errno name
 *   ioctlflags fsxattr PATH  FS_IOC_FSGETXATTR, as nfsd and ksmbd ask it:
 *                            prints "xflags 0x... extsize N projid N
 *                            nextents N cowextsize N" or the errno name
 *
 * Exit status 0 when the call succeeded, 1 when it failed, 2 on misuse.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define CASEFOLD_FL 0x40000000

static const char *errname(int e)
{
	switch (e) {
	case ENOTEMPTY: return "ENOTEMPTY";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOTTY: return "ENOTTY";
	case EINVAL: return "EINVAL";
	case EIO: return "EIO";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	default: return strerror(e);
	}
}

static int failed(void)
{
	printf("%s\n", errname(errno));
	return 1;
}

int main(int argc, char **argv)
{
	int fd;

	if (argc != 3)
		return 2;
	fd = open(argv[2], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return failed();
	if (strcmp(argv[1], "proton") == 0) {
		/* The kernel's flag ioctls take an int, whatever the name says. */
		int flags = 0;

		if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
			return failed();
		flags |= CASEFOLD_FL;
		if (ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0)
			return failed();
		printf("OK\n");
	} else if (strcmp(argv[1], "fsxattr") == 0) {
		struct fsxattr fa;

		memset(&fa, 0, sizeof(fa));
		if (ioctl(fd, FS_IOC_FSGETXATTR, &fa) < 0)
			return failed();
		printf("xflags %#x extsize %u projid %u nextents %u cowextsize %u\n",
		       fa.fsx_xflags, fa.fsx_extsize, fa.fsx_projid, fa.fsx_nextents,
		       fa.fsx_cowextsize);
	} else {
		return 2;
	}
	close(fd);
	return 0;
}
