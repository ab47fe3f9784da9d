/*
 * One request: its arguments decoded from the kernel's layout into the
 * handler's, the handler called, or the answer libfuse 3.14 gave where the
 * table has none.  Lengths are checked before anything is read: a request
 * shorter than its opcode's arguments is answered EINVAL.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/session.h"

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

/* SETATTR: the kernel's record as struct stat and FATTR_* bits. */
static void do_setattr(fk_req_t req, const struct fuse_setattr_in *in)
{
	struct fk_file_info fi, *fip = NULL;
	struct stat st = { 0 };
	int valid = (int)(in->valid & (FATTR_MODE | FATTR_UID | FATTR_GID | FATTR_SIZE |
				       FATTR_ATIME | FATTR_MTIME | FATTR_ATIME_NOW |
				       FATTR_MTIME_NOW | FATTR_CTIME | FATTR_KILL_SUIDGID));

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

/* Opcodes with a name or two (LOOKUP, UNLINK, RMDIR, MKNOD, ...). */
static bool do_names(fk_req_t req, const struct fk_ops *ops, struct args *a)
{
	const char *name, *other;

	switch (req->opcode) {
	case FUSE_LOOKUP:
	case FUSE_UNLINK:
	case FUSE_RMDIR:
	case FUSE_REMOVEXATTR: {
		void (*op)(fk_req_t, fk_ino_t, const char *) =
			req->opcode == FUSE_LOOKUP ? ops->lookup :
			req->opcode == FUSE_UNLINK ? ops->unlink :
			req->opcode == FUSE_RMDIR ? ops->rmdir : ops->removexattr;

		if (!op)
			return false;
		if (!(name = take_name(a)))
			return fk_reply_err(req, EINVAL), true;
		op(req, req->nodeid, name);
		return true;
	}
	case FUSE_MKNOD: {
		const struct fuse_mknod_in *in = take(a, sizeof(*in));

		if (!ops->mknod)
			return false;
		if (!in || !(name = take_name(a)))
			return fk_reply_err(req, EINVAL), true;
		req->ctx.umask = in->umask;
		ops->mknod(req, req->nodeid, name, in->mode, in->rdev);
		return true;
	}
	case FUSE_MKDIR: {
		const struct fuse_mkdir_in *in = take(a, sizeof(*in));

		if (!ops->mkdir)
			return false;
		if (!in || !(name = take_name(a)))
			return fk_reply_err(req, EINVAL), true;
		req->ctx.umask = in->umask;
		ops->mkdir(req, req->nodeid, name, in->mode);
		return true;
	}
	case FUSE_SYMLINK:
		if (!ops->symlink)
			return false;
		if (!(name = take_name(a)) || !(other = take_name(a)))
			return fk_reply_err(req, EINVAL), true;
		ops->symlink(req, other, req->nodeid, name);
		return true;
	case FUSE_RENAME:
	case FUSE_RENAME2: {
		const struct fuse_rename2_in *in2 = NULL;
		const struct fuse_rename_in *in = NULL;
		uint64_t newdir;

		if (!ops->rename)
			return false;
		if (req->opcode == FUSE_RENAME2)
			in2 = take(a, sizeof(*in2));
		else
			in = take(a, sizeof(*in));
		if ((!in && !in2) || !(name = take_name(a)) || !(other = take_name(a)))
			return fk_reply_err(req, EINVAL), true;
		newdir = in2 ? in2->newdir : in->newdir;
		ops->rename(req, req->nodeid, name, newdir, other, in2 ? in2->flags : 0);
		return true;
	}
	case FUSE_LINK: {
		const struct fuse_link_in *in = take(a, sizeof(*in));

		if (!ops->link)
			return false;
		if (!in || !(name = take_name(a)))
			return fk_reply_err(req, EINVAL), true;
		ops->link(req, in->oldnodeid, req->nodeid, name);
		return true;
	}
	case FUSE_CREATE: {
		const struct fuse_create_in *in = take(a, sizeof(*in));
		struct fk_file_info fi;

		if (!ops->create)
			return false;
		if (!in || !(name = take_name(a)))
			return fk_reply_err(req, EINVAL), true;
		file_init(&fi, 0, in->flags);
		req->ctx.umask = in->umask;
		ops->create(req, req->nodeid, name, in->mode, &fi);
		return true;
	}
	}
	return false;
}

/* Opcodes on an open file or directory. */
static bool do_files(fk_req_t req, const struct fk_ops *ops, struct args *a)
{
	struct fk_file_info fi;

	switch (req->opcode) {
	case FUSE_OPEN:
	case FUSE_OPENDIR: {
		const struct fuse_open_in *in = take(a, sizeof(*in));
		bool dir = req->opcode == FUSE_OPENDIR;

		if (!in)
			return fk_reply_err(req, EINVAL), true;
		file_init(&fi, 0, in->flags);
		fi.kill_suidgid = (in->open_flags & FUSE_OPEN_KILL_SUIDGID) != 0;
		if (dir ? !ops->opendir : !ops->open)
			return fk_reply_open(req, &fi), true;  /* libfuse: open succeeds */
		(dir ? ops->opendir : ops->open)(req, req->nodeid, &fi);
		return true;
	}
	case FUSE_READ:
	case FUSE_READDIR:
	case FUSE_READDIRPLUS: {
		const struct fuse_read_in *in = take(a, sizeof(*in));
		void (*op)(fk_req_t, fk_ino_t, size_t, off_t, struct fk_file_info *) =
			req->opcode == FUSE_READ ? ops->read :
			req->opcode == FUSE_READDIR ? ops->readdir : ops->readdirplus;

		if (!op)
			return false;
		if (!in)
			return fk_reply_err(req, EINVAL), true;
		file_init(&fi, in->fh, in->flags);
		fi.lock_owner = in->lock_owner;
		op(req, req->nodeid, in->size, (off_t)in->offset, &fi);
		return true;
	}
	case FUSE_WRITE: {
		const struct fuse_write_in *in = take(a, sizeof(*in));
		const char *data;

		if (!ops->write)
			return false;
		if (!in || !(data = take(a, in->size)))
			return fk_reply_err(req, EINVAL), true;
		file_init(&fi, in->fh, in->flags);
		fi.writepage = (in->write_flags & FUSE_WRITE_CACHE) != 0;
		fi.kill_suidgid = (in->write_flags & FUSE_WRITE_KILL_SUIDGID) != 0;
		fi.lock_owner = in->lock_owner;
		ops->write(req, req->nodeid, data, in->size, (off_t)in->offset, &fi);
		return true;
	}
	case FUSE_FLUSH: {
		const struct fuse_flush_in *in = take(a, sizeof(*in));

		if (!ops->flush)
			return false;
		if (!in)
			return fk_reply_err(req, EINVAL), true;
		file_init(&fi, in->fh, 0);
		fi.flush = 1;
		fi.lock_owner = in->lock_owner;
		ops->flush(req, req->nodeid, &fi);
		return true;
	}
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR: {
		const struct fuse_release_in *in = take(a, sizeof(*in));
		bool dir = req->opcode == FUSE_RELEASEDIR;

		if (!in)
			return fk_reply_err(req, EINVAL), true;
		if (!dir)
			fk_backing_release(req->se, req->nodeid);
		file_init(&fi, in->fh, in->flags);
		fi.flush = (in->release_flags & FUSE_RELEASE_FLUSH) != 0;
		fi.lock_owner = in->lock_owner;
		if (dir ? !ops->releasedir : !ops->release)
			return fk_reply_err(req, 0), true;
		(dir ? ops->releasedir : ops->release)(req, req->nodeid, &fi);
		return true;
	}
	case FUSE_FSYNC:
	case FUSE_FSYNCDIR: {
		const struct fuse_fsync_in *in = take(a, sizeof(*in));
		void (*op)(fk_req_t, fk_ino_t, int, struct fk_file_info *) =
			req->opcode == FUSE_FSYNC ? ops->fsync : ops->fsyncdir;

		if (!op)
			return false;
		if (!in)
			return fk_reply_err(req, EINVAL), true;
		file_init(&fi, in->fh, 0);
		op(req, req->nodeid, in->fsync_flags & FUSE_FSYNC_FDATASYNC, &fi);
		return true;
	}
	case FUSE_FALLOCATE: {
		const struct fuse_fallocate_in *in = take(a, sizeof(*in));

		if (!ops->fallocate)
			return false;
		if (!in)
			return fk_reply_err(req, EINVAL), true;
		file_init(&fi, in->fh, 0);
		ops->fallocate(req, req->nodeid, (int)in->mode, (off_t)in->offset,
			       (off_t)in->length, &fi);
		return true;
	}
	case FUSE_IOCTL: {
		const struct fuse_ioctl_in *in = take(a, sizeof(*in));
		const void *data;

		if (!ops->ioctl)
			return false;
		if (!in || !(data = take(a, in->in_size)))
			return fk_reply_err(req, EINVAL), true;
		if ((in->flags & FUSE_IOCTL_DIR) && !(req->se->conn.want & FUSE_HAS_IOCTL_DIR))
			return fk_reply_err(req, ENOTTY), true;
		file_init(&fi, in->fh, 0);
		ops->ioctl(req, req->nodeid, in->cmd, (void *)(uintptr_t)in->arg, &fi, in->flags,
			   in->in_size ? data : NULL, in->in_size, in->out_size);
		return true;
	}
	}
	return false;
}

/* Opcodes on the node alone. */
static bool do_nodes(fk_req_t req, const struct fk_ops *ops, struct args *a)
{
	switch (req->opcode) {
	case FUSE_GETATTR: {
		const struct fuse_getattr_in *in = take(a, sizeof(*in));
		struct fk_file_info fi;

		if (!ops->getattr)
			return false;
		if (in && (in->getattr_flags & FUSE_GETATTR_FH)) {
			file_init(&fi, in->fh, 0);
			ops->getattr(req, req->nodeid, &fi);
		} else {
			ops->getattr(req, req->nodeid, NULL);
		}
		return true;
	}
	case FUSE_SETATTR: {
		const struct fuse_setattr_in *in = take(a, sizeof(*in));

		if (!ops->setattr)
			return false;
		if (!in)
			return fk_reply_err(req, EINVAL), true;
		do_setattr(req, in);
		return true;
	}
	case FUSE_READLINK:
		if (!ops->readlink)
			return false;
		ops->readlink(req, req->nodeid);
		return true;
	case FUSE_STATFS:
		if (!ops->statfs)
			return false;
		ops->statfs(req, req->nodeid);
		return true;
	case FUSE_SETXATTR: {
		/* Without FUSE_SETXATTR_EXT the kernel sends the 7.32 layout. */
		const struct fuse_setxattr_in *in = take(a, FUSE_COMPAT_SETXATTR_IN_SIZE);
		const char *name, *value;

		if (!ops->setxattr)
			return false;
		if (!in || !(name = take_name(a)) || !(value = take(a, in->size)))
			return fk_reply_err(req, EINVAL), true;
		ops->setxattr(req, req->nodeid, name, value, in->size, (int)in->flags);
		return true;
	}
	case FUSE_GETXATTR:
	case FUSE_LISTXATTR: {
		const struct fuse_getxattr_in *in = take(a, sizeof(*in));
		const char *name;

		if (req->opcode == FUSE_GETXATTR ? !ops->getxattr : !ops->listxattr)
			return false;
		if (!in)
			return fk_reply_err(req, EINVAL), true;
		if (req->opcode == FUSE_LISTXATTR) {
			ops->listxattr(req, req->nodeid, in->size);
			return true;
		}
		if (!(name = take_name(a)))
			return fk_reply_err(req, EINVAL), true;
		ops->getxattr(req, req->nodeid, name, in->size);
		return true;
	}
	}
	return false;
}

/* FORGET and BATCH_FORGET: no reply, whatever happens. */
static void do_forget(fk_req_t req, const struct fk_ops *ops, struct args *a)
{
	if (req->opcode == FUSE_FORGET) {
		const struct fuse_forget_in *in = take(a, sizeof(*in));

		if (in && ops->forget)
			ops->forget(req, req->nodeid, in->nlookup);
		return;
	}
	const struct fuse_batch_forget_in *in = take(a, sizeof(*in));
	struct fk_forget_data *list;

	if (!in || !(list = take(a, (size_t)in->count * sizeof(*list))))
		return;
	if (ops->forget_multi) {
		ops->forget_multi(req, in->count, list);
		return;
	}
	for (uint32_t i = 0; i < in->count && ops->forget; i++)
		ops->forget(req, list[i].ino, list[i].nlookup);
}

/* An opcode's name, as libfuse logged it. */
const char *fk_opname(uint32_t opcode)
{
	static const char *const names[] = {
		[FUSE_LOOKUP] = "LOOKUP", [FUSE_FORGET] = "FORGET", [FUSE_GETATTR] = "GETATTR",
		[FUSE_SETATTR] = "SETATTR", [FUSE_READLINK] = "READLINK",
		[FUSE_SYMLINK] = "SYMLINK", [FUSE_MKNOD] = "MKNOD", [FUSE_MKDIR] = "MKDIR",
		[FUSE_UNLINK] = "UNLINK", [FUSE_RMDIR] = "RMDIR", [FUSE_RENAME] = "RENAME",
		[FUSE_LINK] = "LINK", [FUSE_OPEN] = "OPEN", [FUSE_READ] = "READ",
		[FUSE_WRITE] = "WRITE", [FUSE_STATFS] = "STATFS", [FUSE_RELEASE] = "RELEASE",
		[FUSE_FSYNC] = "FSYNC", [FUSE_SETXATTR] = "SETXATTR",
		[FUSE_GETXATTR] = "GETXATTR", [FUSE_LISTXATTR] = "LISTXATTR",
		[FUSE_REMOVEXATTR] = "REMOVEXATTR", [FUSE_FLUSH] = "FLUSH", [FUSE_INIT] = "INIT",
		[FUSE_OPENDIR] = "OPENDIR", [FUSE_READDIR] = "READDIR",
		[FUSE_RELEASEDIR] = "RELEASEDIR", [FUSE_FSYNCDIR] = "FSYNCDIR",
		[FUSE_GETLK] = "GETLK", [FUSE_SETLK] = "SETLK", [FUSE_SETLKW] = "SETLKW",
		[FUSE_ACCESS] = "ACCESS", [FUSE_CREATE] = "CREATE",
		[FUSE_INTERRUPT] = "INTERRUPT", [FUSE_BMAP] = "BMAP", [FUSE_DESTROY] = "DESTROY",
		[FUSE_IOCTL] = "IOCTL", [FUSE_POLL] = "POLL", [FUSE_BATCH_FORGET] = "BATCH_FORGET",
		[FUSE_FALLOCATE] = "FALLOCATE", [FUSE_READDIRPLUS] = "READDIRPLUS",
		[FUSE_RENAME2] = "RENAME2", [FUSE_LSEEK] = "LSEEK",
		[FUSE_COPY_FILE_RANGE] = "COPY_FILE_RANGE",
	};

	return opcode < sizeof(names) / sizeof(names[0]) && names[opcode] ? names[opcode] : "???";
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
	const struct fk_ops *ops = se->ops;
	struct fk_req req;
	struct args a;

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
	switch (ih->opcode) {
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
		do_forget(&req, ops, &a);
		return;
	case FUSE_INTERRUPT:
		/* Every handler answers at once or not at all: the kernel
		 * drops the interrupt when the request is answered. */
		return;
	case FUSE_DESTROY:
		fk_reply_err(&req, 0);
		return;
	case FUSE_INIT:
		fk_reply_err(&req, EPROTO);
		return;
	}
	if (do_names(&req, ops, &a) || do_files(&req, ops, &a) || do_nodes(&req, ops, &a))
		return;
	if (ih->opcode == FUSE_STATFS) {
		/* libfuse's answer without a handler. */
		struct statvfs st = { .f_namemax = 255, .f_bsize = 512 };

		fk_reply_statfs(&req, &st);
		return;
	}
	fk_reply_err(&req, ENOSYS);
}
