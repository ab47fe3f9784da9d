/*
 * The request decoder (fs/kernel/dispatch.c) fed what a kernel might send,
 * without a kernel: stub handlers that check what they are given and
 * answer as the real ones do, replies written to a socket (one message per
 * writev) or into an io_uring entry.  Properties: a request the kernel
 * waits on gets exactly one reply, FORGET/BATCH_FORGET/INTERRUPT and a
 * request whose header lies about its length get none; a reply names its
 * request, its header counts its bytes, an error carries no payload, and
 * each success has its opcode's layout; a handler sees only bytes of the
 * request (ASan: the request is a buffer of exactly its length).
 *
 * With FLAG_INIT the request is instead a session's first, for INIT's
 * handshake (handshake.c): one reply to an INIT at least as long as the
 * oldest protocol's (7.23), none to anything else; a newer major gets ours
 * back, an older protocol EPROTO, any other INIT an answer that takes
 * nothing the kernel did not offer.
 *
 * Input: byte 0 chooses how the request comes (FLAG_* below); the rest is
 * the request as read(2) gives it, fuse_in_header first, whose len is set
 * to the request's length unless FLAG_KEEP_LEN.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kernel/backing.h"
#include "kernel/dispatch.h"
#include "kernel/handshake.h"
#include "kernel/reply.h"

#define FUZZ_ASSERT(cond, what)                                                  \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "property violated: %s (%s)\n", what, #cond); \
			abort();                                                 \
		}                                                                \
	} while (0)

enum {
	FLAG_RING = 1,        /* came by io_uring: answered into its entry */
	FLAG_KEEP_LEN = 2,    /* the header's len as given, not the request's */
	FLAG_NO_OPS = 4,      /* an empty operation table: libfuse's answers */
	FLAG_IOCTL_DIR = 8,   /* INIT took FUSE_HAS_IOCTL_DIR */
	FLAG_PASSTHROUGH = 16, /* INIT took FUSE_PASSTHROUGH: opens are counted */
	FLAG_INIT = 32        /* the session's first request: the handshake */
};

/* Room for READ's data and a listing, as a worker's buffer would give. */
#define SCRATCH 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct {
	int rd, wr;           /* the socket pair standing for /dev/fuse */
	int file;             /* what READ reads */
	const char *req;      /* the request being decoded, and its end */
	size_t len;
	unsigned calls;       /* handler calls for it */
} fz;

/* A handler's pointer lies inside the request. */
static void inside(const void *p, size_t n)
{
	const char *c = p;

	FUZZ_ASSERT(c >= fz.req && n <= fz.len && c - fz.req <= (ptrdiff_t)(fz.len - n),
		    "argument inside the request");
}

static void name_inside(const char *name)
{
	inside(name, strlen(name) + 1);
}

static void called(void)
{
	fz.calls++;
	FUZZ_ASSERT(fz.calls == 1, "one handler call per request");
}

static void entry(fk_req_t req, fk_ino_t ino)
{
	struct fk_entry_param e = { .ino = ino, .generation = 1, .attr_timeout = 1.5,
				    .entry_timeout = 1e30 };

	e.attr.st_ino = ino;
	e.attr.st_mode = S_IFREG | 0644;
	fk_reply_entry(req, &e);
}

/* Successes and errors both: the request's nodeid decides. */
static void ok_or_err(fk_req_t req, fk_ino_t ino)
{
	fk_reply_err(req, ino & 1 ? ENOENT : 0);
}

static void st_lookup(fk_req_t req, fk_ino_t parent, const char *name)
{
	called();
	name_inside(name);
	if (parent & 1)
		fk_reply_err(req, ENOENT);
	else
		entry(req, parent + 1);
}

static void st_forget(fk_req_t req, fk_ino_t ino, uint64_t nlookup)
{
	(void)ino;
	(void)nlookup;
	called();
	fk_reply_none(req);
}

static void st_forget_multi(fk_req_t req, size_t count, struct fk_forget_data *list)
{
	called();
	inside(list, count * sizeof(*list));
	fk_reply_none(req);
}

static void st_getattr(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi)
{
	struct stat st = { .st_ino = ino, .st_mode = S_IFDIR | 0755, .st_nlink = 2 };

	(void)fi;
	called();
	fk_reply_attr(req, &st, -1);
}

static void st_setattr(fk_req_t req, fk_ino_t ino, struct stat *attr, int valid,
		       struct fk_file_info *fi)
{
	(void)valid;
	(void)fi;
	called();
	attr->st_ino = ino;
	fk_reply_attr(req, attr, 1e300);
}

static void st_readlink(fk_req_t req, fk_ino_t ino)
{
	called();
	if (ino & 1)
		fk_reply_err(req, EINVAL);
	else
		fk_reply_readlink(req, "target");
}

static void st_mknod(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	(void)mode;
	(void)rdev;
	called();
	name_inside(name);
	entry(req, parent + 2);
}

static void st_mkdir(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode)
{
	(void)mode;
	called();
	name_inside(name);
	entry(req, parent + 3);
}

static void st_name(fk_req_t req, fk_ino_t parent, const char *name)
{
	called();
	name_inside(name);
	ok_or_err(req, parent);
}

static void st_symlink(fk_req_t req, const char *target, fk_ino_t parent, const char *name)
{
	called();
	name_inside(target);
	name_inside(name);
	entry(req, parent + 4);
}

static void st_rename(fk_req_t req, fk_ino_t parent, const char *name, fk_ino_t newparent,
		      const char *newname, unsigned int flags)
{
	(void)newparent;
	(void)flags;
	called();
	name_inside(name);
	name_inside(newname);
	ok_or_err(req, parent);
}

static void st_link(fk_req_t req, fk_ino_t ino, fk_ino_t newparent, const char *newname)
{
	(void)newparent;
	called();
	name_inside(newname);
	entry(req, ino);
}

static void st_open(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi)
{
	called();
	fi->fh = ino;
	fi->keep_cache = ino & 1;
	fi->direct_io = ino >> 1 & 1;
	fk_reply_open(req, fi);
}

static void st_read(fk_req_t req, fk_ino_t ino, size_t size, off_t off,
		    struct fk_file_info *fi)
{
	(void)ino;
	(void)fi;
	called();
	fk_reply_fd(req, fz.file, off, size);
}

static void st_write(fk_req_t req, fk_ino_t ino, const char *buf, size_t size, off_t off,
		     struct fk_file_info *fi)
{
	(void)off;
	(void)fi;
	called();
	inside(buf, size);
	if (ino & 1)
		fk_reply_err(req, ENOSPC);
	else
		fk_reply_write(req, size);
}

static void st_file(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi)
{
	(void)fi;
	called();
	ok_or_err(req, ino);
}

static void st_fsync(fk_req_t req, fk_ino_t ino, int datasync, struct fk_file_info *fi)
{
	(void)datasync;
	(void)fi;
	called();
	ok_or_err(req, ino);
}

/* A listing of as many entries as fit size (and the scratch buffer). */
static void listing(fk_req_t req, fk_ino_t ino, size_t size, off_t off, bool plus)
{
	static const char *const names[] = { ".", "..", "a", "Straße", "a-name-of-27-bytes-exactly" };
	char buf[SCRATCH];
	size_t used = 0, n;

	if (size > sizeof(buf))
		size = sizeof(buf);
	for (size_t i = (size_t)off % 8; i < sizeof(names) / sizeof(names[0]); i++) {
		struct fk_entry_param e = { .ino = ino + i, .attr_timeout = 1 };

		e.attr.st_ino = ino + i;
		e.attr.st_mode = S_IFREG;
		n = plus ? fk_add_direntry_plus(req, buf + used, size - used, names[i], &e,
						(off_t)i + 1)
			 : fk_add_direntry(req, buf + used, size - used, names[i], &e.attr,
					   (off_t)i + 1);
		if (n > size - used)
			break;
		used += n;
	}
	fk_reply_buf(req, buf, used);
}

static void st_readdir(fk_req_t req, fk_ino_t ino, size_t size, off_t off,
		       struct fk_file_info *fi)
{
	(void)fi;
	called();
	listing(req, ino, size, off, false);
}

static void st_readdirplus(fk_req_t req, fk_ino_t ino, size_t size, off_t off,
			   struct fk_file_info *fi)
{
	(void)fi;
	called();
	listing(req, ino, size, off, true);
}

static void st_statfs(fk_req_t req, fk_ino_t ino)
{
	struct statvfs st = { .f_bsize = 4096, .f_namemax = 255, .f_blocks = ino };

	called();
	fk_reply_statfs(req, &st);
}

static void st_setxattr(fk_req_t req, fk_ino_t ino, const char *name, const char *value,
			size_t size, int flags)
{
	(void)flags;
	called();
	name_inside(name);
	inside(value, size);
	ok_or_err(req, ino);
}

/* A size of 0 asks how long the answer is; else the answer, or ERANGE. */
static void xattr_answer(fk_req_t req, size_t size)
{
	static const char value[] = "user.a\0user.b";

	if (size == 0)
		fk_reply_xattr(req, sizeof(value));
	else if (size < sizeof(value))
		fk_reply_err(req, ERANGE);
	else
		fk_reply_buf(req, value, sizeof(value));
}

static void st_getxattr(fk_req_t req, fk_ino_t ino, const char *name, size_t size)
{
	(void)ino;
	called();
	name_inside(name);
	xattr_answer(req, size);
}

static void st_listxattr(fk_req_t req, fk_ino_t ino, size_t size)
{
	(void)ino;
	called();
	xattr_answer(req, size);
}

static void st_create(fk_req_t req, fk_ino_t parent, const char *name, mode_t mode,
		      struct fk_file_info *fi)
{
	struct fk_entry_param e = { .ino = parent + 5 };

	called();
	name_inside(name);
	e.attr.st_mode = S_IFREG | (mode & 07777);
	fi->fh = 7;
	fk_reply_create(req, &e, fi);
}

static void st_ioctl(fk_req_t req, fk_ino_t ino, unsigned int cmd, void *arg,
		     struct fk_file_info *fi, unsigned flags, const void *in_buf,
		     size_t in_bufsz, size_t out_bufsz)
{
	(void)ino;
	(void)cmd;
	(void)arg;
	(void)fi;
	(void)flags;
	called();
	if (in_buf)
		inside(in_buf, in_bufsz);
	fk_reply_ioctl(req, 0, in_buf, in_buf && in_bufsz < out_bufsz ? in_bufsz : 0);
}

static void st_fallocate(fk_req_t req, fk_ino_t ino, int mode, off_t off, off_t len,
			 struct fk_file_info *fi)
{
	(void)mode;
	(void)off;
	(void)len;
	(void)fi;
	called();
	ok_or_err(req, ino);
}

static const struct fk_ops stub_ops = {
	.lookup = st_lookup, .forget = st_forget, .forget_multi = st_forget_multi,
	.getattr = st_getattr, .setattr = st_setattr, .readlink = st_readlink,
	.mknod = st_mknod, .mkdir = st_mkdir, .unlink = st_name, .rmdir = st_name,
	.symlink = st_symlink, .rename = st_rename, .link = st_link, .open = st_open,
	.read = st_read, .write = st_write, .flush = st_file, .release = st_file,
	.fsync = st_fsync, .opendir = st_open, .readdir = st_readdir,
	.readdirplus = st_readdirplus, .releasedir = st_file, .fsyncdir = st_fsync,
	.statfs = st_statfs, .setxattr = st_setxattr, .getxattr = st_getxattr,
	.listxattr = st_listxattr, .removexattr = st_name, .create = st_create,
	.ioctl = st_ioctl, .fallocate = st_fallocate,
};
static const struct fk_ops no_ops;

static void setup(void)
{
	int sv[2];
	char text[100];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv))
		abort();
	fz.rd = sv[0];
	fz.wr = sv[1];
	fz.file = memfd_create("fuzz_dispatch", MFD_CLOEXEC);
	memset(text, 'x', sizeof(text));
	if (fz.file < 0 || write(fz.file, text, sizeof(text)) != sizeof(text))
		abort();
}

/* Whether the kernel waits for an answer to this request. */
static bool answered(const struct fuse_in_header *ih, size_t len)
{
	if (len < sizeof(*ih) || ih->len != len)
		return false;
	return ih->opcode != FUSE_FORGET && ih->opcode != FUSE_BATCH_FORGET &&
	       ih->opcode != FUSE_INTERRUPT;
}

/* A listing's entries fill its payload exactly, each 8-aligned and whole. */
static void check_dirents(const char *p, size_t n, bool plus)
{
	size_t head = plus ? FUSE_NAME_OFFSET_DIRENTPLUS : FUSE_NAME_OFFSET;

	FUZZ_ASSERT(n % 8 == 0, "a listing is 8-aligned");
	while (n) {
		const struct fuse_dirent *d;
		size_t size;

		FUZZ_ASSERT(n >= head, "a whole dirent");
		d = (const void *)(p + head - FUSE_NAME_OFFSET);
		size = FUSE_DIRENT_ALIGN(head + d->namelen);
		FUZZ_ASSERT(d->namelen > 0 && size <= n, "a dirent's name fits");
		FUZZ_ASSERT(memchr(d->name, '\0', d->namelen) == NULL, "no NUL in a name");
		p += size;
		n -= size;
	}
}

/* A successful reply's payload has its opcode's layout. */
static void check_layout(uint32_t opcode, const char *p, size_t n)
{
	switch (opcode) {
	case FUSE_LOOKUP: case FUSE_MKNOD: case FUSE_MKDIR: case FUSE_SYMLINK: case FUSE_LINK:
		FUZZ_ASSERT(n == sizeof(struct fuse_entry_out), "entry layout");
		break;
	case FUSE_CREATE:
		FUZZ_ASSERT(n == sizeof(struct fuse_entry_out) + sizeof(struct fk_open_out),
			    "create layout");
		break;
	case FUSE_OPEN: case FUSE_OPENDIR:
		FUZZ_ASSERT(n == sizeof(struct fk_open_out), "open layout");
		break;
	case FUSE_GETATTR: case FUSE_SETATTR:
		FUZZ_ASSERT(n == sizeof(struct fuse_attr_out), "attr layout");
		break;
	case FUSE_WRITE:
		FUZZ_ASSERT(n == sizeof(struct fuse_write_out), "write layout");
		break;
	case FUSE_STATFS:
		FUZZ_ASSERT(n == sizeof(struct fuse_statfs_out), "statfs layout");
		break;
	case FUSE_IOCTL:
		FUZZ_ASSERT(n >= sizeof(struct fuse_ioctl_out), "ioctl layout");
		break;
	case FUSE_READ:
		FUZZ_ASSERT(n <= SCRATCH, "read within the buffer");
		break;
	case FUSE_READDIR: case FUSE_READDIRPLUS:
		check_dirents(p, n, opcode == FUSE_READDIRPLUS);
		break;
	case FUSE_GETXATTR: case FUSE_LISTXATTR:
		FUZZ_ASSERT(n == sizeof(struct fuse_getxattr_out) || n == 14, "xattr layout");
		break;
	case FUSE_READLINK:
		FUZZ_ASSERT(n == 6, "readlink layout");
		break;
	case FUSE_INIT:
		/* Ours back to a newer major (8 bytes), or the whole answer. */
		FUZZ_ASSERT(n == 8 || n == sizeof(struct fk_init_out), "init layout");
		break;
	default:
		FUZZ_ASSERT(n == 0, "no payload");
	}
}

/* One reply, its header and payload: of the request, counted, its layout. */
static void check_reply(const struct fuse_in_header *ih, const struct fuse_out_header *oh,
			const char *payload, size_t n)
{
	FUZZ_ASSERT(oh->unique == ih->unique, "the reply names its request");
	FUZZ_ASSERT(oh->len == sizeof(*oh) + n, "the header counts the reply");
	FUZZ_ASSERT(oh->error <= 0 && oh->error > -4096, "a negative errno");
	if (oh->error)
		FUZZ_ASSERT(n == 0, "an error carries nothing");
	else
		check_layout(ih->opcode, payload, n);
}

/* The replies sent to the socket for this request: how many, each checked. */
static unsigned drain(const struct fuse_in_header *ih)
{
	static char buf[SCRATCH + 4096];
	unsigned count = 0;
	ssize_t n;

	while ((n = recv(fz.rd, buf, sizeof(buf), MSG_TRUNC)) >= 0) {
		FUZZ_ASSERT((size_t)n >= sizeof(struct fuse_out_header) && (size_t)n <= sizeof(buf),
			    "a whole reply");
		check_reply(ih, (const void *)buf, buf + sizeof(struct fuse_out_header),
			    (size_t)n - sizeof(struct fuse_out_header));
		count++;
	}
	FUZZ_ASSERT(errno == EAGAIN, "the socket drained");
	return count;
}

/* The io_uring entry's answer: one, or none. */
static unsigned ring_answer(const struct fuse_in_header *ih, const struct fk_ring_ent *ent)
{
	struct fuse_out_header oh;

	if (!ent->replied)
		return 0;
	memcpy(&oh, ent->head.in_out, sizeof(oh));
	FUZZ_ASSERT(ent->head.ent.payload_sz <= ent->payload_size, "payload within the entry");
	check_reply(ih, &oh, ent->payload, ent->head.ent.payload_sz);
	return 1;
}

/*
 * The handshake on a fresh session: a reply to INIT alone, and what it
 * says; r is what fk_handshake returned.
 */
static void check_handshake(const struct fuse_in_header *ih, const char *req, size_t len, int r)
{
	static char buf[4096];
	const struct fuse_init_in *in = (const void *)(req + sizeof(*ih));
	struct fuse_out_header oh;
	struct fk_init_out out = { 0 };
	uint64_t offer, taken;
	ssize_t n = recv(fz.rd, buf, sizeof(buf), 0);

	if (len < sizeof(*ih) + 16 || ih->opcode != FUSE_INIT) {
		FUZZ_ASSERT(n < 0 && r == -1, "no answer to what is not INIT");
		return;
	}
	FUZZ_ASSERT(n >= (ssize_t)sizeof(oh), "an answer to INIT");
	FUZZ_ASSERT(recv(fz.rd, buf + n, sizeof(buf) - (size_t)n, 0) < 0, "one answer to INIT");
	memcpy(&oh, buf, sizeof(oh));
	check_reply(ih, &oh, buf + sizeof(oh), (size_t)n - sizeof(oh));
	memcpy(&out, buf + sizeof(oh), (size_t)n - sizeof(oh));
	if (in->major > FK_PROTO_MAJOR) {
		FUZZ_ASSERT(r == 1 && !oh.error && out.major == FK_PROTO_MAJOR, "our major back");
		return;
	}
	if (in->major < FK_PROTO_MAJOR || in->minor < 23) {
		FUZZ_ASSERT(r == -1 && oh.error == -EPROTO, "too old a protocol refused");
		return;
	}
	FUZZ_ASSERT(r == 0 && !oh.error && n == sizeof(oh) + sizeof(out), "INIT answered");
	offer = in->flags;
	if ((in->flags & FUSE_INIT_EXT) && len >= sizeof(*ih) + offsetof(struct fuse_init_in, flags2) + 4)
		offer |= (uint64_t)in->flags2 << 32;
	taken = out.flags | (uint64_t)out.flags2 << 32;
	FUZZ_ASSERT((taken & ~offer) == 0, "nothing taken that was not offered");
	FUZZ_ASSERT(out.major == FK_PROTO_MAJOR && out.minor == FK_PROTO_MINOR, "our protocol");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fk_session se = { .backing_lock = PTHREAD_MUTEX_INITIALIZER };
	struct fuse_in_header ih = { 0 };
	struct fk_ring_ent ent = { .payload_size = SCRATCH };
	char *req, *scratch;
	unsigned flags, replies;

	if (size < 1)
		return 0;
	if (!fz.file)
		setup();
	flags = data[0];
	size--;
	req = malloc(size ? size : 1);
	scratch = malloc(SCRATCH);
	ent.payload = flags & FLAG_RING ? scratch : NULL;
	memcpy(req, data + 1, size);
	if (size >= sizeof(ih) && !(flags & FLAG_KEEP_LEN))
		memcpy(req + offsetof(struct fuse_in_header, len), &(uint32_t){ (uint32_t)size }, 4);
	if (size >= sizeof(ih))
		memcpy(&ih, req, sizeof(ih));
	se.fd = fz.wr;
	se.ops = flags & FLAG_NO_OPS ? &no_ops : &stub_ops;
	se.conn.want = (flags & FLAG_IOCTL_DIR ? FUSE_HAS_IOCTL_DIR : 0) |
		       (flags & FLAG_PASSTHROUGH ? FUSE_PASSTHROUGH : 0);
	fz.req = req;
	fz.len = size;
	fz.calls = 0;
	if (flags & FLAG_INIT) {
		struct fk_session first = { .fd = fz.wr, .ops = se.ops,
					    .backing_lock = PTHREAD_MUTEX_INITIALIZER };

		check_handshake(&ih, req, size, fk_handshake(&first, req, size));
		free(scratch);
		free(req);
		return 0;
	}
	fk_dispatch(&se, se.fd, req, size, scratch, SCRATCH, flags & FLAG_RING ? &ent : NULL);
	replies = flags & FLAG_RING ? ring_answer(&ih, &ent) : drain(&ih);
	FUZZ_ASSERT(replies == (answered(&ih, size) ? 1u : 0u), "one reply where one is awaited");
	/* The passthrough records a request's opens left, as the session's end frees them. */
	fk_backing_forget_all(&se);
	free(scratch);
	free(req);
	return 0;
}
