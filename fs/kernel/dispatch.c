/*
 * The protocol in one table (protocol[] below), indexed by opcode: each
 * row names the opcode for the logs, gives the least body it decodes, its
 * decoder and the operation table's slot for its handler.  fk_dispatch
 * serves every request through it, whichever way it came (loop.c's
 * read(2), uring.c's entries); fk_opname reads its names for the -d log
 * and the watchdog.  INIT is answered before any request, by handshake.c
 * beside it.
 *
 * Lengths are checked before anything is read: a body shorter than its
 * row's least is answered EINVAL, and a decoder checks what lies past it
 * (names and their NULs, a WRITE's data).  Without a handler, the answer
 * libfuse 3.14 gave: ENOSYS, or the row's own (OPTIONAL).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/backing.h"
#include "kernel/dispatch.h"
#include "kernel/reply.h"

/* The request's arguments after the header, consumed front to back. */
struct args {
	char *p;
	size_t left;
};

static void *take(struct args *a, size_t size)
{
	void *p = a->p;

	if (a->left < size)
		return NULL;
	a->p += size;
	a->left -= size;
	return p;
}

/* A NUL-terminated name. */
static const char *take_name(struct args *a)
{
	char *end = memchr(a->p, '\0', a->left);

	return end ? take(a, (size_t)(end - a->p) + 1) : NULL;
}

static void file_init(struct fk_file_info *fi, uint64_t fh, uint32_t flags)
{
	memset(fi, 0, sizeof(*fi));
	fi->fh = fh;
	fi->flags = (int)flags;
	fi->backing_fd = -1;
}

/* A row's handler: 0 is INIT's slot, never a request's, so 0 means none. */
_Static_assert(offsetof(struct fk_ops, init) == 0, "slot 0 must not be a request's");
#define SLOT(handler) offsetof(struct fk_ops, handler)

enum {
	NO_REPLY = 1,  /* the kernel waits for nothing: a short body or no handler, dropped */
	OPTIONAL = 2,  /* without a handler the decoder answers as libfuse did */
};

struct opdesc {
	const char *name;  /* as libfuse logged it */
	size_t least;      /* the shortest body decodable; shorter is EINVAL */
	void (*decode)(fk_req_t req, const struct opdesc *d, struct args *a);
	size_t slot;       /* SLOT(handler), 0: none */
	unsigned flags;
};

/* The row's handler, as the type its slot has (decoders shared by opcodes). */
#define HANDLER(req, d, type) (*(type const *)(const void *)((const char *)(req)->se->ops + (d)->slot))
typedef void name_op(fk_req_t, fk_ino_t, const char *);
typedef void file_op(fk_req_t, fk_ino_t, struct fk_file_info *);
typedef void read_op(fk_req_t, fk_ino_t, size_t, off_t, struct fk_file_info *);
typedef void sync_op(fk_req_t, fk_ino_t, int, struct fk_file_info *);

/* Whether the operation table fills the slot. */
static bool handled(const struct fk_ops *ops, size_t slot)
{
	void (*fn)(void);

	memcpy(&fn, (const char *)ops + slot, sizeof(fn));
	return fn != NULL;
}

/* LOOKUP, UNLINK, RMDIR, REMOVEXATTR: one name. */
static void dec_name(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const char *name = take_name(a);

	if (!name)
		fk_reply_err(req, EINVAL);
	else
		HANDLER(req, d, name_op *)(req, req->nodeid, name);
}

static void dec_mknod(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_mknod_in *in = take(a, sizeof(*in));
	const char *name = take_name(a);

	(void)d;
	if (!name) {
		fk_reply_err(req, EINVAL);
		return;
	}
	req->ctx.umask = in->umask;
	req->se->ops->mknod(req, req->nodeid, name, in->mode, in->rdev);
}

static void dec_mkdir(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_mkdir_in *in = take(a, sizeof(*in));
	const char *name = take_name(a);

	(void)d;
	if (!name) {
		fk_reply_err(req, EINVAL);
		return;
	}
	req->ctx.umask = in->umask;
	req->se->ops->mkdir(req, req->nodeid, name, in->mode);
}

/* The link's name, then its target. */
static void dec_symlink(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const char *name = take_name(a);
	const char *target = name ? take_name(a) : NULL;

	(void)d;
	if (!target) {
		fk_reply_err(req, EINVAL);
		return;
	}
	req->se->ops->symlink(req, target, req->nodeid, name);
}

/* RENAME and RENAME2: the new directory (and flags), the old name, the new. */
static void renamed(fk_req_t req, struct args *a, uint64_t newdir, unsigned flags)
{
	const char *name = take_name(a);
	const char *newname = name ? take_name(a) : NULL;

	if (!newname) {
		fk_reply_err(req, EINVAL);
		return;
	}
	req->se->ops->rename(req, req->nodeid, name, newdir, newname, flags);
}

static void dec_rename(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_rename_in *in = take(a, sizeof(*in));

	(void)d;
	renamed(req, a, in->newdir, 0);
}

static void dec_rename2(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_rename2_in *in = take(a, sizeof(*in));

	(void)d;
	renamed(req, a, in->newdir, in->flags);
}

static void dec_link(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_link_in *in = take(a, sizeof(*in));
	const char *name = take_name(a);

	(void)d;
	if (!name) {
		fk_reply_err(req, EINVAL);
		return;
	}
	req->se->ops->link(req, in->oldnodeid, req->nodeid, name);
}

static void dec_create(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_create_in *in = take(a, sizeof(*in));
	const char *name = take_name(a);
	struct fk_file_info fi;

	(void)d;
	if (!name) {
		fk_reply_err(req, EINVAL);
		return;
	}
	file_init(&fi, 0, in->flags);
	req->ctx.umask = in->umask;
	req->se->ops->create(req, req->nodeid, name, in->mode, &fi);
}

/* OPEN and OPENDIR (OPTIONAL: without a handler, libfuse's open succeeds). */
static void dec_open(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_open_in *in = take(a, sizeof(*in));
	struct fk_file_info fi;

	file_init(&fi, 0, in->flags);
	fi.kill_suidgid = (in->open_flags & FUSE_OPEN_KILL_SUIDGID) != 0;
	if (!handled(req->se->ops, d->slot))
		fk_reply_open(req, &fi);
	else
		HANDLER(req, d, file_op *)(req, req->nodeid, &fi);
}

/* READ, READDIR, READDIRPLUS. */
static void dec_read(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_read_in *in = take(a, sizeof(*in));
	struct fk_file_info fi;

	file_init(&fi, in->fh, in->flags);
	fi.lock_owner = in->lock_owner;
	HANDLER(req, d, read_op *)(req, req->nodeid, in->size, (off_t)in->offset, &fi);
}

static void dec_write(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_write_in *in = take(a, sizeof(*in));
	const char *data = take(a, in->size);
	struct fk_file_info fi;

	(void)d;
	if (!data) {
		fk_reply_err(req, EINVAL);
		return;
	}
	file_init(&fi, in->fh, in->flags);
	fi.writepage = (in->write_flags & FUSE_WRITE_CACHE) != 0;
	fi.kill_suidgid = (in->write_flags & FUSE_WRITE_KILL_SUIDGID) != 0;
	fi.lock_owner = in->lock_owner;
	req->se->ops->write(req, req->nodeid, data, in->size, (off_t)in->offset, &fi);
}

static void dec_flush(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_flush_in *in = take(a, sizeof(*in));
	struct fk_file_info fi;

	(void)d;
	file_init(&fi, in->fh, 0);
	fi.flush = 1;
	fi.lock_owner = in->lock_owner;
	req->se->ops->flush(req, req->nodeid, &fi);
}

/*
 * RELEASE and RELEASEDIR (OPTIONAL: without a handler, success).  A file's
 * passthrough record is dropped whatever the handler does (backing.c).
 */
static void dec_release(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_release_in *in = take(a, sizeof(*in));
	struct fk_file_info fi;

	if (req->opcode == FUSE_RELEASE)
		fk_backing_release(req->se, req->nodeid);
	file_init(&fi, in->fh, in->flags);
	fi.flush = (in->release_flags & FUSE_RELEASE_FLUSH) != 0;
	fi.lock_owner = in->lock_owner;
	if (!handled(req->se->ops, d->slot))
		fk_reply_err(req, 0);
	else
		HANDLER(req, d, file_op *)(req, req->nodeid, &fi);
}

/* FSYNC and FSYNCDIR. */
static void dec_fsync(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_fsync_in *in = take(a, sizeof(*in));
	struct fk_file_info fi;

	file_init(&fi, in->fh, 0);
	HANDLER(req, d, sync_op *)(req, req->nodeid, in->fsync_flags & FUSE_FSYNC_FDATASYNC, &fi);
}

static void dec_fallocate(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_fallocate_in *in = take(a, sizeof(*in));
	struct fk_file_info fi;

	(void)d;
	file_init(&fi, in->fh, 0);
	req->se->ops->fallocate(req, req->nodeid, (int)in->mode, (off_t)in->offset,
				(off_t)in->length, &fi);
}

/* The ioctl's input follows; a directory's only if INIT took FUSE_HAS_IOCTL_DIR. */
static void dec_ioctl(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_ioctl_in *in = take(a, sizeof(*in));
	const void *data = take(a, in->in_size);
	struct fk_file_info fi;

	(void)d;
	if (!data) {
		fk_reply_err(req, EINVAL);
		return;
	}
	if ((in->flags & FUSE_IOCTL_DIR) && !(req->se->conn.want & FUSE_HAS_IOCTL_DIR)) {
		fk_reply_err(req, ENOTTY);
		return;
	}
	file_init(&fi, in->fh, 0);
	req->se->ops->ioctl(req, req->nodeid, in->cmd, (void *)(uintptr_t)in->arg, &fi, in->flags,
			    in->in_size ? data : NULL, in->in_size, in->out_size);
}

/* GETATTR: the body is optional, as libfuse took it; a file handle if it says so. */
static void dec_getattr(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_getattr_in *in = take(a, sizeof(*in));
	struct fk_file_info fi;

	(void)d;
	if (in && (in->getattr_flags & FUSE_GETATTR_FH)) {
		file_init(&fi, in->fh, 0);
		req->se->ops->getattr(req, req->nodeid, &fi);
	} else {
		req->se->ops->getattr(req, req->nodeid, NULL);
	}
}

/* SETATTR: the kernel's record as struct stat and FATTR_* bits. */
static void dec_setattr(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_setattr_in *in = take(a, sizeof(*in));
	struct fk_file_info fi, *fip = NULL;
	struct stat st = { 0 };
	int valid;

	(void)d;
	valid = (int)(in->valid & (FATTR_MODE | FATTR_UID | FATTR_GID | FATTR_SIZE | FATTR_ATIME |
				   FATTR_MTIME | FATTR_ATIME_NOW | FATTR_MTIME_NOW | FATTR_CTIME |
				   FATTR_KILL_SUIDGID));
	st.st_mode = in->mode;
	st.st_uid = in->uid;
	st.st_gid = in->gid;
	st.st_size = (off_t)in->size;
	st.st_atim.tv_sec = (time_t)in->atime;
	st.st_atim.tv_nsec = in->atimensec;
	st.st_mtim.tv_sec = (time_t)in->mtime;
	st.st_mtim.tv_nsec = in->mtimensec;
	st.st_ctim.tv_sec = (time_t)in->ctime;
	st.st_ctim.tv_nsec = in->ctimensec;
	if (in->valid & FATTR_FH) {
		file_init(&fi, in->fh, 0);
		fip = &fi;
	}
	req->se->ops->setattr(req, req->nodeid, &st, valid, fip);
}

static void dec_readlink(fk_req_t req, const struct opdesc *d, struct args *a)
{
	(void)d;
	(void)a;
	req->se->ops->readlink(req, req->nodeid);
}

/* STATFS (OPTIONAL: without a handler, libfuse's answer). */
static void dec_statfs(fk_req_t req, const struct opdesc *d, struct args *a)
{
	struct statvfs st = { .f_namemax = 255, .f_bsize = 512 };

	(void)a;
	if (!handled(req->se->ops, d->slot))
		fk_reply_statfs(req, &st);
	else
		req->se->ops->statfs(req, req->nodeid);
}

/* SETXATTR: without FUSE_SETXATTR_EXT the kernel sends the 7.32 layout. */
static void dec_setxattr(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_setxattr_in *in = take(a, FUSE_COMPAT_SETXATTR_IN_SIZE);
	const char *name = take_name(a);
	const char *value = name ? take(a, in->size) : NULL;

	(void)d;
	if (!value) {
		fk_reply_err(req, EINVAL);
		return;
	}
	req->se->ops->setxattr(req, req->nodeid, name, value, in->size, (int)in->flags);
}

static void dec_getxattr(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_getxattr_in *in = take(a, sizeof(*in));
	const char *name = take_name(a);

	(void)d;
	if (!name) {
		fk_reply_err(req, EINVAL);
		return;
	}
	req->se->ops->getxattr(req, req->nodeid, name, in->size);
}

static void dec_listxattr(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_getxattr_in *in = take(a, sizeof(*in));

	(void)d;
	req->se->ops->listxattr(req, req->nodeid, in->size);
}

static void dec_forget(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fuse_forget_in *in = take(a, sizeof(*in));

	(void)d;
	req->se->ops->forget(req, req->nodeid, in->nlookup);
}

/* BATCH_FORGET (OPTIONAL: without forget_multi, one forget per node). */
static void dec_batch_forget(fk_req_t req, const struct opdesc *d, struct args *a)
{
	const struct fk_ops *ops = req->se->ops;
	const struct fuse_batch_forget_in *in = take(a, sizeof(*in));
	struct fk_forget_data *list = take(a, (size_t)in->count * sizeof(*list));

	(void)d;
	if (!list)
		return;
	if (ops->forget_multi) {
		ops->forget_multi(req, in->count, list);
		return;
	}
	for (uint32_t i = 0; i < in->count && ops->forget; i++)
		ops->forget(req, list[i].ino, list[i].nlookup);
}

/* Every handler answers at once or not at all: the kernel drops the
 * interrupt when the request is answered. */
static void dec_interrupt(fk_req_t req, const struct opdesc *d, struct args *a)
{
	(void)req;
	(void)d;
	(void)a;
}

static void dec_destroy(fk_req_t req, const struct opdesc *d, struct args *a)
{
	(void)d;
	(void)a;
	fk_reply_err(req, 0);
}

/* INIT comes once, first, to handshake.c; another is a protocol error. */
static void dec_init(fk_req_t req, const struct opdesc *d, struct args *a)
{
	(void)d;
	(void)a;
	fk_reply_err(req, EPROTO);
}

/* A name is at least its NUL. */
#define NAME 1

/* The protocol: rows without a decoder are named for the log and answered ENOSYS. */
static const struct opdesc protocol[] = {
	[FUSE_LOOKUP] = { "LOOKUP", NAME, dec_name, SLOT(lookup), 0 },
	[FUSE_FORGET] = { "FORGET", sizeof(struct fuse_forget_in), dec_forget, SLOT(forget),
			  NO_REPLY },
	[FUSE_GETATTR] = { "GETATTR", 0, dec_getattr, SLOT(getattr), 0 },
	[FUSE_SETATTR] = { "SETATTR", sizeof(struct fuse_setattr_in), dec_setattr,
			   SLOT(setattr), 0 },
	[FUSE_READLINK] = { "READLINK", 0, dec_readlink, SLOT(readlink), 0 },
	[FUSE_SYMLINK] = { "SYMLINK", 2 * NAME, dec_symlink, SLOT(symlink), 0 },
	[FUSE_MKNOD] = { "MKNOD", sizeof(struct fuse_mknod_in) + NAME, dec_mknod, SLOT(mknod), 0 },
	[FUSE_MKDIR] = { "MKDIR", sizeof(struct fuse_mkdir_in) + NAME, dec_mkdir, SLOT(mkdir), 0 },
	[FUSE_UNLINK] = { "UNLINK", NAME, dec_name, SLOT(unlink), 0 },
	[FUSE_RMDIR] = { "RMDIR", NAME, dec_name, SLOT(rmdir), 0 },
	[FUSE_RENAME] = { "RENAME", sizeof(struct fuse_rename_in) + 2 * NAME, dec_rename,
			  SLOT(rename), 0 },
	[FUSE_LINK] = { "LINK", sizeof(struct fuse_link_in) + NAME, dec_link, SLOT(link), 0 },
	[FUSE_OPEN] = { "OPEN", sizeof(struct fuse_open_in), dec_open, SLOT(open), OPTIONAL },
	[FUSE_READ] = { "READ", sizeof(struct fuse_read_in), dec_read, SLOT(read), 0 },
	[FUSE_WRITE] = { "WRITE", sizeof(struct fuse_write_in), dec_write, SLOT(write), 0 },
	[FUSE_STATFS] = { "STATFS", 0, dec_statfs, SLOT(statfs), OPTIONAL },
	[FUSE_RELEASE] = { "RELEASE", sizeof(struct fuse_release_in), dec_release,
			   SLOT(release), OPTIONAL },
	[FUSE_FSYNC] = { "FSYNC", sizeof(struct fuse_fsync_in), dec_fsync, SLOT(fsync), 0 },
	[FUSE_SETXATTR] = { "SETXATTR", FUSE_COMPAT_SETXATTR_IN_SIZE + NAME, dec_setxattr,
			    SLOT(setxattr), 0 },
	[FUSE_GETXATTR] = { "GETXATTR", sizeof(struct fuse_getxattr_in) + NAME, dec_getxattr,
			    SLOT(getxattr), 0 },
	[FUSE_LISTXATTR] = { "LISTXATTR", sizeof(struct fuse_getxattr_in), dec_listxattr,
			     SLOT(listxattr), 0 },
	[FUSE_REMOVEXATTR] = { "REMOVEXATTR", NAME, dec_name, SLOT(removexattr), 0 },
	[FUSE_FLUSH] = { "FLUSH", sizeof(struct fuse_flush_in), dec_flush, SLOT(flush), 0 },
	[FUSE_INIT] = { "INIT", 0, dec_init, 0, 0 },
	[FUSE_OPENDIR] = { "OPENDIR", sizeof(struct fuse_open_in), dec_open, SLOT(opendir),
			   OPTIONAL },
	[FUSE_READDIR] = { "READDIR", sizeof(struct fuse_read_in), dec_read, SLOT(readdir), 0 },
	[FUSE_RELEASEDIR] = { "RELEASEDIR", sizeof(struct fuse_release_in), dec_release,
			      SLOT(releasedir), OPTIONAL },
	[FUSE_FSYNCDIR] = { "FSYNCDIR", sizeof(struct fuse_fsync_in), dec_fsync,
			    SLOT(fsyncdir), 0 },
	[FUSE_GETLK] = { .name = "GETLK" },
	[FUSE_SETLK] = { .name = "SETLK" },
	[FUSE_SETLKW] = { .name = "SETLKW" },
	[FUSE_ACCESS] = { .name = "ACCESS" },
	[FUSE_CREATE] = { "CREATE", sizeof(struct fuse_create_in) + NAME, dec_create,
			  SLOT(create), 0 },
	[FUSE_INTERRUPT] = { "INTERRUPT", 0, dec_interrupt, 0, NO_REPLY },
	[FUSE_BMAP] = { .name = "BMAP" },
	[FUSE_DESTROY] = { "DESTROY", 0, dec_destroy, 0, 0 },
	[FUSE_IOCTL] = { "IOCTL", sizeof(struct fuse_ioctl_in), dec_ioctl, SLOT(ioctl), 0 },
	[FUSE_POLL] = { .name = "POLL" },
	[FUSE_BATCH_FORGET] = { "BATCH_FORGET", sizeof(struct fuse_batch_forget_in),
				dec_batch_forget, SLOT(forget_multi), NO_REPLY | OPTIONAL },
	[FUSE_FALLOCATE] = { "FALLOCATE", sizeof(struct fuse_fallocate_in), dec_fallocate,
			     SLOT(fallocate), 0 },
	[FUSE_READDIRPLUS] = { "READDIRPLUS", sizeof(struct fuse_read_in), dec_read,
			       SLOT(readdirplus), 0 },
	[FUSE_RENAME2] = { "RENAME2", sizeof(struct fuse_rename2_in) + 2 * NAME, dec_rename2,
			   SLOT(rename), 0 },
	[FUSE_LSEEK] = { .name = "LSEEK" },
	[FUSE_COPY_FILE_RANGE] = { .name = "COPY_FILE_RANGE" },
};
#define NOPCODES (sizeof(protocol) / sizeof(protocol[0]))

const char *fk_opname(uint32_t opcode)
{
	return opcode < NOPCODES && protocol[opcode].name ? protocol[opcode].name : "???";
}

/* -d: one line per request, in libfuse's words (tests count them by opcode). */
static void log_request(const struct fuse_in_header *ih)
{
	fprintf(stderr, "unique: %llu, opcode: %s (%u), nodeid: %llu, insize: %u, pid: %u\n",
		(unsigned long long)ih->unique, fk_opname(ih->opcode), ih->opcode,
		(unsigned long long)ih->nodeid, ih->len, ih->pid);
}

void fk_dispatch(struct fk_session *se, int fd, char *buf, size_t len, char *scratch,
		 size_t scratch_size, struct fk_ring_ent *ring)
{
	const struct fuse_in_header *ih = (const void *)buf;
	const struct opdesc *d;
	struct fk_req req;
	struct args a;
	int err;

	if (len < sizeof(*ih) || ih->len != len)
		return;
	if (se->opt.debug)
		log_request(ih);
	req = (struct fk_req){
		.se = se, .fd = fd, .unique = ih->unique, .nodeid = ih->nodeid,
		.opcode = ih->opcode,
		.ctx = { .uid = ih->uid, .gid = ih->gid, .pid = (pid_t)ih->pid },
		.scratch = scratch, .scratch_size = scratch_size, .ring = ring,
	};
	a = (struct args){ buf + sizeof(*ih), len - sizeof(*ih) };
	d = ih->opcode < NOPCODES ? &protocol[ih->opcode] : NULL;
	if (!d || !d->decode)
		err = ENOSYS;
	else if (d->slot && !(d->flags & OPTIONAL) && !handled(se->ops, d->slot))
		err = ENOSYS;
	else if (a.left < d->least)
		err = EINVAL;
	else
		err = 0;
	if (!err)
		d->decode(&req, d, &a);
	else if (!(d && (d->flags & NO_REPLY)))
		fk_reply_err(&req, err);
}
