/*
 * Notices (notify.c): what the daemon tells the kernel unasked, from any
 * thread.  0, or -errno (-ENOENT: the kernel knows no such node).
 */
#ifndef FK_NOTIFY_H
#define FK_NOTIFY_H

#include "kernel/fk.h"

int fk_notify_inval_inode(struct fk_session *se, fk_ino_t ino, off_t off, off_t len);
int fk_notify_inval_entry(struct fk_session *se, fk_ino_t parent, const char *name,
			  size_t namelen);
int fk_notify_expire_entry(struct fk_session *se, fk_ino_t parent, const char *name,
			   size_t namelen);
int fk_notify_inc_epoch(struct fk_session *se);
bool fk_notify_has_epoch(const struct fk_session *se);

#endif /* FK_NOTIFY_H */
