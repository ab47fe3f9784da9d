/*
 * Replies: each one fuse_out_header and its payload in one writev to the
 * descriptor the request came by.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "kernel/backing.h"
#include "kernel/internal.h"
#include "kernel/reply.h"

/* Room for the header and three pieces of payload. */
#define MAX_IOV 4

int fk_send(int fd, uint64_t unique, int error, const struct iovec *iov, int count)
{
	struct fuse_out_header oh = { .unique = unique, .error = -error };
	struct iovec all[MAX_IOV];
	ssize_t n;

	all[0].iov_base = &oh;
	all[0].iov_len = sizeof(oh);
	oh.len = sizeof(oh);
	for (int i = 0; i < count; i++) {
		all[i + 1] = iov[i];
		oh.len += (uint32_t)iov[i].iov_len;
	}
	n = writev(fd, all, count + 1);
	/* ENOENT: the request was interrupted and is gone; the caller undoes. */
	if (n < 0)
		return -errno;
	return n == (ssize_t)oh.len ? 0 : -EIO;
}

/*
 * A reply by io_uring: the header and payload into the request's entry,
 * committed by uring.c once the handler returns.
 */
static int ring_reply(struct fk_ring_ent *ent, uint64_t unique, int error,
		      const struct iovec *iov, int count)
{
	struct fuse_out_header oh = { .unique = unique, .error = -error };
	size_t used = 0;
	int r = 0;

	for (int i = 0; i < count && !error; i++) {
		if (iov[i].iov_len > ent->payload_size - used) {
			oh.error = -EIO;
			r = -EIO;
			break;
		}
		/* A READ's data is already there (scratch is the payload). */
		if (iov[i].iov_base != ent->payload + used)
			memmove(ent->payload + used, iov[i].iov_base, iov[i].iov_len);
		used += iov[i].iov_len;
	}
	if (oh.error)
		used = 0;
	oh.len = (uint32_t)(sizeof(oh) + used);
	memcpy(ent->head.in_out, &oh, sizeof(oh));
	ent->head.ent.payload_sz = (uint32_t)used;
	ent->replied = true;
	return r;
}

/* The reply the way the request came: /dev/fuse, or its io_uring entry. */
static int send_req(fk_req_t req, int error, const struct iovec *iov, int count)
{
	if (req->ring)
		return ring_reply(req->ring, req->unique, error, iov, count);
	return fk_send(req->fd, req->unique, error, iov, count);
}

static int reply(fk_req_t req, int error, const void *arg, size_t size)
{
	struct iovec iov = { (void *)arg, size };

	return send_req(req, error, &iov, size ? 1 : 0);
}

void *fk_req_userdata(fk_req_t req)
{
	return req->se->data;
}

const struct fk_ctx *fk_req_ctx(fk_req_t req)
{
	return &req->ctx;
}

struct fk_session *fk_req_session(fk_req_t req)
{
	return req->se;
}

int fk_reply_err(fk_req_t req, int err)
{
	return reply(req, err, NULL, 0);
}

void fk_reply_none(fk_req_t req)
{
	(void)req;
}

/* A cache lifetime in seconds as the kernel takes it: whole and nanoseconds. */
static void split_timeout(double t, uint64_t *sec, uint32_t *nsec)
{
	if (!(t > 0)) {
		*sec = 0;
		*nsec = 0;
	} else if (t >= (double)UINT64_MAX) {
		*sec = UINT64_MAX;
		*nsec = 0;
	} else {
		*sec = (uint64_t)t;
		*nsec = (uint32_t)((t - (double)*sec) * 1.0e9);
		if (*nsec >= 1000000000u)
			*nsec = 999999999u;
	}
}

static void fill_attr(struct fuse_attr *a, const struct stat *st)
{
	a->ino = st->st_ino;
	a->mode = st->st_mode;
	a->nlink = (uint32_t)st->st_nlink;
	a->uid = st->st_uid;
	a->gid = st->st_gid;
	a->rdev = (uint32_t)st->st_rdev;
	a->size = (uint64_t)st->st_size;
	a->blksize = (uint32_t)st->st_blksize;
	a->blocks = (uint64_t)st->st_blocks;
	a->atime = (uint64_t)st->st_atim.tv_sec;
	a->mtime = (uint64_t)st->st_mtim.tv_sec;
	a->ctime = (uint64_t)st->st_ctim.tv_sec;
	a->atimensec = (uint32_t)st->st_atim.tv_nsec;
	a->mtimensec = (uint32_t)st->st_mtim.tv_nsec;
	a->ctimensec = (uint32_t)st->st_ctim.tv_nsec;
}

static void fill_entry(struct fuse_entry_out *o, const struct fk_entry_param *e)
{
	memset(o, 0, sizeof(*o));
	o->nodeid = e->ino;
	o->generation = e->generation;
	split_timeout(e->entry_timeout, &o->entry_valid, &o->entry_valid_nsec);
	split_timeout(e->attr_timeout, &o->attr_valid, &o->attr_valid_nsec);
	fill_attr(&o->attr, &e->attr);
}

int fk_reply_entry(fk_req_t req, const struct fk_entry_param *e)
{
	struct fuse_entry_out o;

	fill_entry(&o, e);
	return reply(req, 0, &o, sizeof(o));
}

static uint32_t open_flags(const struct fk_file_info *fi)
{
	return (fi->direct_io ? FOPEN_DIRECT_IO : 0) | (fi->keep_cache ? FOPEN_KEEP_CACHE : 0) |
	       (fi->nonseekable ? FOPEN_NONSEEKABLE : 0) |
	       (fi->cache_readdir ? FOPEN_CACHE_DIR : 0) | (fi->noflush ? FOPEN_NOFLUSH : 0);
}

/*
 * OPEN's and CREATE's answer, with the backing file passed through where
 * the session and the file allow (backing.c); its count of the node's
 * opens is taken back if the kernel no longer waits.
 */
static int reply_opened(fk_req_t req, uint64_t nodeid, const struct fk_file_info *fi,
			struct fuse_entry_out *entry)
{
	struct fk_open_out o = { .fh = fi->fh, .open_flags = open_flags(fi) };
	struct iovec iov[2];
	int n = 0, counted, r;

	counted = fk_backing_attach(req, nodeid, fi, &o.open_flags);
	if (counted > 0)
		o.backing_id = counted;
	if (entry) {
		iov[n].iov_base = entry;
		iov[n++].iov_len = sizeof(*entry);
	}
	iov[n].iov_base = &o;
	iov[n++].iov_len = sizeof(o);
	r = send_req(req, 0, iov, n);
	if (r != 0 && counted >= 0)
		fk_backing_undo(req->se, nodeid);
	return r;
}

int fk_reply_open(fk_req_t req, const struct fk_file_info *fi)
{
	return reply_opened(req, req->nodeid, fi, NULL);
}

int fk_reply_create(fk_req_t req, const struct fk_entry_param *e,
		    const struct fk_file_info *fi)
{
	struct fuse_entry_out o;

	fill_entry(&o, e);
	return reply_opened(req, e->ino, fi, &o);
}

int fk_reply_attr(fk_req_t req, const struct stat *attr, double attr_timeout)
{
	struct fuse_attr_out o = { 0 };

	split_timeout(attr_timeout, &o.attr_valid, &o.attr_valid_nsec);
	fill_attr(&o.attr, attr);
	return reply(req, 0, &o, sizeof(o));
}

int fk_reply_readlink(fk_req_t req, const char *link)
{
	return reply(req, 0, link, strlen(link));
}

int fk_reply_write(fk_req_t req, size_t count)
{
	struct fuse_write_out o = { .size = (uint32_t)count };

	return reply(req, 0, &o, sizeof(o));
}

int fk_reply_buf(fk_req_t req, const void *buf, size_t size)
{
	return reply(req, 0, buf, size);
}

/*
 * READ: into the worker's own buffer, free once the request is decoded,
 * then out in one writev.  A short read is the end of the file, which the
 * kernel takes from the reply's length.
 *
 * No splice: on Linux 6.18 a copy read a 512 MiB file through the mount
 * faster (260-380 ms against 323-842 ms) with a third of the daemon's CPU,
 * and a splice must size a pipe by pages (the header's included), or it
 * blocks in its own reply — which hung readers until the kernel aborted
 * the mount (issue 39).  A copy cannot block on anything but the backing
 * file.
 */
int fk_reply_fd(fk_req_t req, int fd, off_t off, size_t size)
{
	size_t got = 0;
	ssize_t n;

	if (size > req->scratch_size)
		size = req->scratch_size;
	while (got < size) {
		n = pread(fd, req->scratch + got, size - got, off + (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return got ? reply(req, 0, req->scratch, got) : fk_reply_err(req, errno);
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return reply(req, 0, req->scratch, got);
}

int fk_reply_pwrite(fk_req_t req, int fd, const char *buf, size_t size, off_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < size) {
		n = pwrite(fd, buf + done, size - done, off + (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && !done)
			return fk_reply_err(req, errno);
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	return fk_reply_write(req, done);
}

int fk_reply_statfs(fk_req_t req, const struct statvfs *st)
{
	struct fuse_statfs_out o = { .st = {
		.blocks = st->f_blocks, .bfree = st->f_bfree, .bavail = st->f_bavail,
		.files = st->f_files, .ffree = st->f_ffree, .bsize = (uint32_t)st->f_bsize,
		.namelen = (uint32_t)st->f_namemax, .frsize = (uint32_t)st->f_frsize,
	} };

	return reply(req, 0, &o, sizeof(o));
}

int fk_reply_xattr(fk_req_t req, size_t count)
{
	struct fuse_getxattr_out o = { .size = (uint32_t)count };

	return reply(req, 0, &o, sizeof(o));
}

int fk_reply_ioctl(fk_req_t req, int result, const void *buf, size_t size)
{
	struct fuse_ioctl_out o = { .result = result };
	struct iovec iov[2] = { { &o, sizeof(o) }, { (void *)buf, size } };

	return send_req(req, 0, iov, size ? 2 : 1);
}

/* A listing's entry: the dirent, its name, zeros to the next 8 bytes. */
static size_t put_dirent(char *buf, size_t room, const char *name, uint64_t ino, mode_t mode,
			 off_t off)
{
	size_t namelen = strlen(name);
	size_t size = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + namelen);
	struct fuse_dirent *d = (void *)buf;

	if (size > room)
		return size;
	d->ino = ino;
	d->off = (uint64_t)off;
	d->namelen = (uint32_t)namelen;
	d->type = (mode & S_IFMT) >> 12;
	memcpy(d->name, name, namelen);
	memset(d->name + namelen, 0, size - FUSE_NAME_OFFSET - namelen);
	return size;
}

size_t fk_add_direntry(fk_req_t req, char *buf, size_t bufsize, const char *name,
		       const struct stat *st, off_t off)
{
	(void)req;
	return put_dirent(buf, bufsize, name, st->st_ino, st->st_mode, off);
}

size_t fk_add_direntry_plus(fk_req_t req, char *buf, size_t bufsize, const char *name,
			    const struct fk_entry_param *e, off_t off)
{
	size_t namelen = strlen(name);
	size_t size = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET_DIRENTPLUS + namelen);
	struct fuse_direntplus *dp = (void *)buf;

	(void)req;
	if (size > bufsize)
		return size;
	fill_entry(&dp->entry_out, e);
	put_dirent((char *)&dp->dirent, bufsize - offsetof(struct fuse_direntplus, dirent), name,
		   e->attr.st_ino, e->attr.st_mode, off);
	return size;
}
