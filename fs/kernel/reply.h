/*
 * What a handler calls on its request: who asks (reply.c, groups.c) and
 * the one reply it owes (reply.c).
 */
#ifndef FK_REPLY_H
#define FK_REPLY_H

#include <sys/uio.h>

#include "kernel/fk.h"

void *fk_req_userdata(fk_req_t req);
const struct fk_ctx *fk_req_ctx(fk_req_t req);
struct fk_session *fk_req_session(fk_req_t req);
/* The caller's supplementary groups, as getgroups(2): the count, or -errno. */
int fk_req_getgroups(fk_req_t req, int size, gid_t list[]);

/*
 * Replies: 0, or -errno when the kernel no longer waits for it (a request
 * that came by io_uring cannot tell: 0).
 */
int fk_reply_err(fk_req_t req, int err);
void fk_reply_none(fk_req_t req);
int fk_reply_entry(fk_req_t req, const struct fk_entry_param *e);
int fk_reply_create(fk_req_t req, const struct fk_entry_param *e,
		    const struct fk_file_info *fi);
int fk_reply_attr(fk_req_t req, const struct stat *attr, double attr_timeout);
int fk_reply_readlink(fk_req_t req, const char *link);
int fk_reply_open(fk_req_t req, const struct fk_file_info *fi);
int fk_reply_write(fk_req_t req, size_t count);
int fk_reply_buf(fk_req_t req, const void *buf, size_t size);
/* READ's data: up to size bytes of fd from off (pread, then one writev). */
int fk_reply_fd(fk_req_t req, int fd, off_t off, size_t size);
/* WRITE's data: written to fd at off, answered with the count written (or the error). */
int fk_reply_pwrite(fk_req_t req, int fd, const char *buf, size_t size, off_t off);
int fk_reply_statfs(fk_req_t req, const struct statvfs *st);
int fk_reply_xattr(fk_req_t req, size_t count);
int fk_reply_ioctl(fk_req_t req, int result, const void *buf, size_t size);

/*
 * One entry of a READDIR (READDIRPLUS) answer into buf: the size it takes,
 * written only if that is at most bufsize.
 */
size_t fk_add_direntry(fk_req_t req, char *buf, size_t bufsize, const char *name,
		       const struct stat *st, off_t off);
size_t fk_add_direntry_plus(fk_req_t req, char *buf, size_t bufsize, const char *name,
			    const struct fk_entry_param *e, off_t off);

/*
 * fs/kernel's own messages to the kernel, outside any handler (INIT's
 * answer, notices, the watchdog's EIO): fuse_out_header and iov in one
 * writev to fd; 0 or -errno.  A handler answers with fk_reply_* instead.
 */
int fk_send(int fd, uint64_t unique, int error, const struct iovec *iov, int count);

#endif /* FK_REPLY_H */
