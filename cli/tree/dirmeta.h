/*
 * A directory's casefold flag (the inode flag of ext4, f2fs, tmpfs and
 * casefoldfs, read and set with FS_IOC_GETFLAGS / FS_IOC_SETFLAGS, 4 bytes)
 * and the metadata a replacement directory must copy from the original.
 */
#ifndef CLI_DIRMETA_H
#define CLI_DIRMETA_H

#include <stdbool.h>

/* 1 if the directory fd is casefolded, 0 if not, or -errno (-ENOTTY or
 * -EOPNOTSUPP: the filesystem has no inode flags). */
int cli_casefolded(int fd);

/* Set the flag on the empty directory fd.  Returns 0 or -errno. */
int cli_set_casefold(int fd);

/*
 * Give to: from's extended attributes (ACLs included).  Then, for
 * cli_copy_owner_mode, from's owner and permission bits: done after the
 * entries are in, as a mode without write permission would stop them.
 * Both are idempotent.  Return 0 or -errno; *what names the failing step.
 */
int cli_copy_xattrs(int from, int to, const char **what);
int cli_copy_owner_mode(int from, int to, const char **what);

#endif
