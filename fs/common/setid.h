/*
 * Set-user-ID and set-group-ID bits as ext4 decides them, for a mode whose
 * handlers take the job from the kernel (FUSE_HANDLE_KILLPRIV_V2): which
 * bits a caller's change clears, and whether the caller may clear them
 * (setid.c).
 */
#ifndef CFS_SETID_H
#define CFS_SETID_H

#include <stdbool.h>
#include <sys/stat.h>

#include "common/caps.h"
#include "common/lowlevel.h"

mode_t setid_cleared(mode_t mode, bool keeps_group);
mode_t setid_at_write(fk_req_t req, const struct stat *st);
mode_t setid_at_chown(fk_req_t req, const struct stat *st);
int setid_at_touch(fk_req_t req, const struct stat *st, const char *path, bool writing,
		   mode_t *kill);
bool setid_setattr_clears(int valid);
int setid_at_setattr(fk_req_t req, const struct stat *st, int valid, const char *path,
		     bool writing, mode_t *kill);
int setid_set_mode(struct fk_session *se, fk_ino_t ino, int fd, mode_t mode, bool fsetid);
int setid_settle(struct fk_session *se, fk_ino_t ino, int fd, const struct stat *st,
		 mode_t kill, bool fsetid);
bool setid_passes_through(int fd);
bool setid_backing_begin(struct caps_sets *saved);
void setid_backing_end(const struct caps_sets *saved);

#endif /* CFS_SETID_H */
