/*
 * fs/kernel's replies, byte for byte, as the kernel reads them: what the
 * decoder answers itself (dispatch.c: a short body, an opcode without a
 * decoder or handler, libfuse's answers where the row is OPTIONAL, a second
 * INIT, nothing to FORGET), and what each fk_reply_* and fk_add_direntry*
 * writes (reply.c): the header, the structure of the opcode, cache
 * lifetimes split into seconds and nanoseconds, FOPEN_* flags, listings
 * 8-aligned, the same answer into an io_uring entry, and one too big for
 * the entry turned into EIO.  fuzz/fuzz_dispatch.c checks properties of
 * any input; this checks the exact bytes of the usual ones.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "kernel/backing.h"
#include "kernel/dispatch.h"
#include "kernel/reply.h"

/* The socket pair that stands for /dev/fuse: the daemon writes wr, the test reads rd. */
static int rd, wr;

/* One reply: its header and payload; -1 when nothing was sent. */
static char got[8192];
static ssize_t next_reply(struct fuse_out_header *oh, const char **payload)
{
	ssize_t n = recv(rd, got, sizeof(got), MSG_DONTWAIT);

	if (n < (ssize_t)sizeof(*oh))
		return -1;
	memcpy(oh, got, sizeof(*oh));
	*payload = got + sizeof(*oh);
	return n - (ssize_t)sizeof(*oh);
}

/* A request of opcode with body, as read(2) gives it, in buf; its length. */
static size_t request(char *buf, uint32_t opcode, uint64_t unique, const void *body, size_t n)
{
	struct fuse_in_header ih = { .len = (uint32_t)(sizeof(ih) + n), .opcode = opcode,
				     .unique = unique, .nodeid = 5, .uid = 1000, .gid = 1000,
				     .pid = 42 };

	memcpy(buf, &ih, sizeof(ih));
	if (n)
		memcpy(buf + sizeof(ih), body, n);
	return sizeof(ih) + n;
}

static struct fk_session se = { .backing_lock = PTHREAD_MUTEX_INITIALIZER };
static const struct fk_ops no_ops;

/* Handlers a request must never reach: the decoder answers first. */
static void never_read(fk_req_t r, fk_ino_t ino, size_t size, off_t off, struct fk_file_info *fi)
{
	(void)ino;
	(void)size;
	(void)off;
	(void)fi;
	CHECK(0, "READ reached its handler");
	fk_reply_err(r, EIO);
}

static void never_lookup(fk_req_t r, fk_ino_t parent, const char *name)
{
	(void)parent;
	CHECK(0, "LOOKUP of \"%s\" reached its handler", name);
	fk_reply_err(r, EIO);
}

/* The error dispatching opcode with body answers with, -1 if none; payload bytes in *n. */
static int answer(uint32_t opcode, const void *body, size_t len, ssize_t *n)
{
	static char buf[4096], scratch[4096];
	struct fuse_out_header oh;
	const char *p;
	size_t rlen = request(buf, opcode, 77, body, len);

	fk_dispatch(&se, wr, buf, rlen, scratch, sizeof(scratch), NULL);
	*n = next_reply(&oh, &p);
	if (*n < 0)
		return -1;
	CHECK(oh.unique == 77, "opcode %u: the reply names unique %llu", opcode,
	      (unsigned long long)oh.unique);
	CHECK(oh.len == sizeof(oh) + (size_t)*n, "opcode %u: header len %u", opcode, oh.len);
	return -oh.error;
}

static void decoder_answers(void)
{
	struct fuse_open_in open_in = { .flags = 2 };
	struct fuse_forget_in forget_in = { .nlookup = 1 };
	struct fuse_read_in read_in = { .size = 10 };
	struct fk_open_out oo;
	struct fuse_statfs_out so;
	ssize_t n;

	se.ops = &no_ops;
	/* Without a handler: ENOSYS, or libfuse's own answer where the row is OPTIONAL. */
	CHECK(answer(FUSE_LOOKUP, "a", 2, &n) == ENOSYS && n == 0, "LOOKUP without a handler");
	CHECK(answer(FUSE_OPEN, &open_in, sizeof(open_in), &n) == 0 && n == sizeof(oo),
	      "OPEN without a handler succeeds (%zd bytes)", n);
	memcpy(&oo, got + sizeof(struct fuse_out_header), sizeof(oo));
	CHECK(oo.fh == 0 && oo.open_flags == 0 && oo.backing_id == 0, "OPEN's default answer");
	CHECK(answer(FUSE_STATFS, NULL, 0, &n) == 0 && n == sizeof(so), "STATFS's default");
	memcpy(&so, got + sizeof(struct fuse_out_header), sizeof(so));
	CHECK(so.st.namelen == 255 && so.st.bsize == 512 && so.st.blocks == 0,
	      "STATFS's default: namelen %u bsize %u", so.st.namelen, so.st.bsize);
	CHECK(answer(FUSE_RELEASE, &(struct fuse_release_in){ 0 }, sizeof(struct fuse_release_in),
		     &n) == 0 && n == 0, "RELEASE without a handler: 0");
	/* No decoder: ENOSYS, whatever the table holds. */
	CHECK(answer(FUSE_GETLK, NULL, 0, &n) == ENOSYS, "GETLK");
	CHECK(answer(4000, NULL, 0, &n) == ENOSYS, "an opcode past the table");
	/* A second INIT is a protocol error; DESTROY is answered 0. */
	CHECK(answer(FUSE_INIT, NULL, 0, &n) == EPROTO, "a second INIT");
	CHECK(answer(FUSE_DESTROY, NULL, 0, &n) == 0 && n == 0, "DESTROY");
	/* Nothing to FORGET and INTERRUPT, whether handled or not, short or not. */
	CHECK(answer(FUSE_FORGET, &forget_in, sizeof(forget_in), &n) == -1, "FORGET");
	CHECK(answer(FUSE_FORGET, &forget_in, 4, &n) == -1, "a short FORGET");
	CHECK(answer(FUSE_INTERRUPT, &forget_in, sizeof(forget_in), &n) == -1, "INTERRUPT");
	/* A body shorter than its row's least: EINVAL, before any handler. */
	se.ops = &(const struct fk_ops){ .read = never_read };
	CHECK(answer(FUSE_READ, &read_in, sizeof(read_in) - 1, &n) == EINVAL && n == 0,
	      "a READ one byte short");
	se.ops = &(const struct fk_ops){ .lookup = never_lookup };
	CHECK(answer(FUSE_LOOKUP, "abc", 3, &n) == EINVAL, "a name without its NUL");
	CHECK(answer(FUSE_LOOKUP, NULL, 0, &n) == EINVAL, "LOOKUP of nothing");
	/* A header whose length is not the request's: dropped unanswered. */
	{
		char buf[64], scratch[16];
		size_t len = request(buf, FUSE_STATFS, 78, NULL, 0);
		struct fuse_out_header oh;
		const char *p;

		se.ops = &no_ops;
		fk_dispatch(&se, wr, buf, len + 8, scratch, sizeof(scratch), NULL);
		CHECK(next_reply(&oh, &p) < 0, "a header that lies about its length");
	}
}

/* A request to answer by hand, as a handler would, on the socket or into entry. */
static struct fk_req req(struct fk_ring_ent *entry, char *scratch, size_t size)
{
	return (struct fk_req){ .se = &se, .fd = wr, .unique = 9, .nodeid = 5,
				.opcode = FUSE_LOOKUP, .scratch = scratch,
				.scratch_size = size, .ring = entry };
}

static void entry_and_attr(void)
{
	struct fk_entry_param e = { .ino = 12, .generation = 3, .entry_timeout = 1.25,
				    .attr_timeout = 1e300 };
	struct fk_req r = req(NULL, NULL, 0);
	struct fuse_entry_out eo;
	struct fuse_attr_out ao;
	struct fuse_out_header oh;
	const char *p;

	e.attr.st_ino = 12;
	e.attr.st_mode = S_IFREG | 0640;
	e.attr.st_nlink = 2;
	e.attr.st_uid = 1000;
	e.attr.st_size = 1 << 20;
	e.attr.st_mtim = (struct timespec){ 1700000000, 123456789 };
	CHECK(fk_reply_entry(&r, &e) == 0, "fk_reply_entry");
	CHECK(next_reply(&oh, &p) == sizeof(eo) && oh.error == 0 && oh.unique == 9,
	      "entry: %u bytes, error %d", oh.len, oh.error);
	memcpy(&eo, p, sizeof(eo));
	CHECK(eo.nodeid == 12 && eo.generation == 3, "entry: node and generation");
	CHECK(eo.entry_valid == 1 && eo.entry_valid_nsec == 250000000, "1.25 s: %llu s %u ns",
	      (unsigned long long)eo.entry_valid, eo.entry_valid_nsec);
	CHECK(eo.attr_valid == UINT64_MAX && eo.attr_valid_nsec == 0, "for ever: the most");
	CHECK(eo.attr.ino == 12 && eo.attr.mode == (S_IFREG | 0640) && eo.attr.nlink == 2 &&
	      eo.attr.uid == 1000 && eo.attr.size == 1 << 20, "entry: attributes");
	CHECK(eo.attr.mtime == 1700000000 && eo.attr.mtimensec == 123456789, "entry: mtime");

	/* A negative lifetime is none; a negative entry is ino 0. */
	CHECK(fk_reply_attr(&r, &e.attr, -1) == 0, "fk_reply_attr");
	CHECK(next_reply(&oh, &p) == sizeof(ao), "attr: %u bytes", oh.len);
	memcpy(&ao, p, sizeof(ao));
	CHECK(ao.attr_valid == 0 && ao.attr_valid_nsec == 0, "attr: no lifetime");
	CHECK(ao.attr.size == 1 << 20 && ao.attr.mtimensec == 123456789, "attr: attributes");
}

static void opens(void)
{
	struct fk_file_info fi = { .fh = 0xfeed, .direct_io = 1, .keep_cache = 1,
				   .nonseekable = 1, .backing_fd = -1 };
	struct fk_entry_param e = { .ino = 30 };
	struct fk_req r = req(NULL, NULL, 0);
	struct fuse_out_header oh;
	struct fk_open_out oo;
	struct fuse_entry_out eo;
	const char *p;

	se.conn.want = 0;
	CHECK(fk_reply_open(&r, &fi) == 0, "fk_reply_open");
	CHECK(next_reply(&oh, &p) == sizeof(oo), "open: %u bytes", oh.len);
	memcpy(&oo, p, sizeof(oo));
	CHECK(oo.fh == 0xfeed, "open: the handler's fh");
	CHECK(oo.open_flags == (FOPEN_DIRECT_IO | FOPEN_KEEP_CACHE | FOPEN_NONSEEKABLE),
	      "open: flags %#x", oo.open_flags);
	CHECK(oo.backing_id == 0, "open: no backing file without passthrough");

	/*
	 * Passthrough taken at INIT, but a backing file the kernel refuses (a
	 * socket is no /dev/fuse): the open goes through the daemon, counted.
	 */
	se.conn.want = FUSE_PASSTHROUGH;
	fi.backing_fd = 0;
	fi.direct_io = 0;
	CHECK(fk_reply_create(&r, &e, &fi) == 0, "fk_reply_create");
	CHECK(next_reply(&oh, &p) == sizeof(eo) + sizeof(oo), "create: %u bytes", oh.len);
	memcpy(&eo, p, sizeof(eo));
	memcpy(&oo, p + sizeof(eo), sizeof(oo));
	CHECK(eo.nodeid == 30 && oo.fh == 0xfeed, "create: the entry, then the open");
	CHECK(!(oo.open_flags & FOPEN_PASSTHROUGH) && oo.backing_id == 0,
	      "create: refused, not passed through (%#x)", oo.open_flags);
	CHECK(atomic_load(&se.backing_refused) == 1, "create: the refusal counted");
	fk_backing_release(&se, 30);
	se.conn.want = 0;
}

static void small_replies(void)
{
	struct statvfs st = { .f_blocks = 100, .f_bfree = 50, .f_bsize = 4096, .f_namemax = 255,
			      .f_frsize = 4096, .f_files = 7 };
	struct fk_req r = req(NULL, NULL, 0);
	struct fuse_out_header oh;
	struct fuse_write_out wo;
	struct fuse_getxattr_out xo;
	struct fuse_statfs_out so;
	struct fuse_ioctl_out io;
	const char *p;

	CHECK(fk_reply_err(&r, ENOENT) == 0, "fk_reply_err");
	CHECK(next_reply(&oh, &p) == 0 && oh.error == -ENOENT, "an error: -errno, no payload");
	fk_reply_none(&r);
	CHECK(next_reply(&oh, &p) < 0, "fk_reply_none sends nothing");
	CHECK(fk_reply_readlink(&r, "../target") == 0 && next_reply(&oh, &p) == 9 &&
	      memcmp(p, "../target", 9) == 0, "readlink: the target without its NUL");
	CHECK(fk_reply_write(&r, 4096) == 0 && next_reply(&oh, &p) == sizeof(wo), "write");
	memcpy(&wo, p, sizeof(wo));
	CHECK(wo.size == 4096, "write: the count");
	CHECK(fk_reply_xattr(&r, 13) == 0 && next_reply(&oh, &p) == sizeof(xo), "xattr");
	memcpy(&xo, p, sizeof(xo));
	CHECK(xo.size == 13, "xattr: the size asked for");
	CHECK(fk_reply_statfs(&r, &st) == 0 && next_reply(&oh, &p) == sizeof(so), "statfs");
	memcpy(&so, p, sizeof(so));
	CHECK(so.st.blocks == 100 && so.st.bfree == 50 && so.st.bsize == 4096 &&
	      so.st.namelen == 255 && so.st.frsize == 4096 && so.st.files == 7, "statfs: fields");
	CHECK(fk_reply_ioctl(&r, 0, "\1\2\3\4", 4) == 0 &&
	      next_reply(&oh, &p) == sizeof(io) + 4, "ioctl: result, then the data");
	memcpy(&io, p, sizeof(io));
	CHECK(io.result == 0 && memcmp(p + sizeof(io), "\1\2\3\4", 4) == 0, "ioctl: bytes");
	CHECK(fk_reply_buf(&r, "", 0) == 0 && next_reply(&oh, &p) == 0 && oh.error == 0,
	      "an empty buffer: success, nothing after the header");
}

/* READ from a file: at most what the scratch buffer holds; a short read is the end. */
static void reads(void)
{
	char scratch[8];
	struct fk_req r = req(NULL, scratch, sizeof(scratch));
	struct fuse_out_header oh;
	const char *p;
	int fd = memfd_create("replies", MFD_CLOEXEC);

	CHECK(fd >= 0 && write(fd, "0123456789", 10) == 10, "the file");
	CHECK(fk_reply_fd(&r, fd, 2, 100) == 0 && next_reply(&oh, &p) == 8 &&
	      memcmp(p, "23456789", 8) == 0, "read: as much as the buffer holds");
	CHECK(fk_reply_fd(&r, fd, 7, 8) == 0 && next_reply(&oh, &p) == 3 &&
	      memcmp(p, "789", 3) == 0, "read: short at the end of the file");
	CHECK(fk_reply_fd(&r, fd, 10, 8) == 0 && next_reply(&oh, &p) == 0 && oh.error == 0,
	      "read: nothing past the end");
	CHECK(fk_reply_fd(&r, -1, 0, 8) == 0 && next_reply(&oh, &p) == 0 && oh.error == -EBADF,
	      "read: the file's error");
	CHECK(fk_reply_pwrite(&r, fd, "ab", 2, 0) == 0 && next_reply(&oh, &p) == 8, "pwrite");
	CHECK(pread(fd, scratch, 2, 0) == 2 && memcmp(scratch, "ab", 2) == 0, "pwrite wrote");
	close(fd);
}

/* Listings: each entry 8-aligned, its size returned whether or not it fits. */
static void listings(void)
{
	struct stat st = { .st_ino = 4, .st_mode = S_IFDIR | 0755 };
	struct fk_entry_param e = { .ino = 6, .attr_timeout = 2 };
	struct fk_req r = req(NULL, NULL, 0);
	char buf[256];
	const struct fuse_dirent *d = (const void *)buf;
	const struct fuse_direntplus *dp = (const void *)buf;
	size_t n;

	memset(buf, 0x55, sizeof(buf));
	n = fk_add_direntry(&r, buf, sizeof(buf), "Straße", &st, 3);
	CHECK(n == FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + 7) && n % 8 == 0, "dirent: %zu bytes", n);
	CHECK(d->ino == 4 && d->off == 3 && d->namelen == 7 && d->type == DT_DIR &&
	      memcmp(d->name, "Straße", 7) == 0, "dirent: fields");
	CHECK(buf[FUSE_NAME_OFFSET + 7] == 0 && buf[n - 1] == 0, "dirent: zeros to the boundary");
	memset(buf, 0x55, sizeof(buf));
	CHECK(fk_add_direntry(&r, buf, n - 1, "Straße", &st, 3) == n && (unsigned char)buf[0] == 0x55,
	      "dirent: too big for the room, sized and not written");

	e.attr.st_ino = 6;
	e.attr.st_mode = S_IFLNK | 0777;
	n = fk_add_direntry_plus(&r, buf, sizeof(buf), "l", &e, 9);
	CHECK(n == FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET_DIRENTPLUS + 1), "direntplus: %zu bytes", n);
	CHECK(dp->entry_out.nodeid == 6 && dp->entry_out.attr_valid == 2 &&
	      dp->dirent.ino == 6 && dp->dirent.off == 9 && dp->dirent.type == DT_LNK &&
	      dp->dirent.namelen == 1 && dp->dirent.name[0] == 'l', "direntplus: fields");
	CHECK(fk_add_direntry_plus(&r, buf, n - 8, "l", &e, 9) == n, "direntplus: sized");
}

/* By io_uring: the same answer into the request's entry; one too big is EIO. */
static void ring(void)
{
	char payload[16];
	struct fk_ring_ent ent = { .payload = payload, .payload_size = sizeof(payload) };
	struct fk_req r = req(&ent, payload, sizeof(payload));
	struct fuse_out_header oh, sent;
	struct fk_entry_param e = { .ino = 1 };
	const char *p;

	CHECK(fk_reply_write(&r, 5) == 0 && ent.replied, "ring: answered");
	memcpy(&oh, ent.head.in_out, sizeof(oh));
	CHECK(oh.unique == 9 && oh.error == 0 && oh.len == sizeof(oh) + sizeof(struct fuse_write_out) &&
	      ent.head.ent.payload_sz == sizeof(struct fuse_write_out), "ring: header and size");
	CHECK(next_reply(&sent, &p) < 0, "ring: nothing on the descriptor");
	ent.replied = false;
	CHECK(fk_reply_entry(&r, &e) == -EIO && ent.replied, "ring: an entry bigger than 16 bytes");
	memcpy(&oh, ent.head.in_out, sizeof(oh));
	CHECK(oh.error == -EIO && oh.len == sizeof(oh) && ent.head.ent.payload_sz == 0,
	      "ring: EIO, no payload");
	CHECK(fk_reply_err(&r, EPERM) == 0 && ent.head.ent.payload_sz == 0, "ring: an error");
	memcpy(&oh, ent.head.in_out, sizeof(oh));
	CHECK(oh.error == -EPERM, "ring: the error");
}

int main(void)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		perror("socketpair");
		return 1;
	}
	rd = sv[0];
	wr = sv[1];
	se.fd = wr;  /* no /dev/fuse: passthrough's BACKING_OPEN fails on it */
	decoder_answers();
	entry_and_attr();
	opens();
	small_replies();
	reads();
	listings();
	ring();
	fk_backing_forget_all(&se);
	return test_done("replies");
}
