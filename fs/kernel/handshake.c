/*
 * INIT, the protocol's first exchange, beside its table (dispatch.c): what
 * the kernel offers, what every mount takes of it, what the mode's init
 * handler asks, passthrough, io_uring and the request timeout settled, and
 * the answer (fs/kernel/DESIGN.md, "Kernel features").  The main thread
 * answers it before any worker starts (loop.c), so INIT never reaches
 * fk_dispatch, whose row for it refuses a second one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel/handshake.h"
#include "kernel/reply.h"
#include "kernel/uring.h"

/*
 * What every mount takes where the kernel offers it, before the init
 * handler's say: libfuse 3.14's defaults for a low-level daemon (the
 * handlers were tuned on them), and requests of FK_MAX_PAGES pages.  Never
 * FUSE_HANDLE_KILLPRIV: a daemon that writes, truncates and chowns as root
 * keeps set-user-ID and set-group-ID bits (CAP_FSETID), so the kernel must
 * clear them itself, judging the caller's capabilities, as on ext4 (a view's
 * file written by another user kept its set-user-ID bit: pjdfstest chmod/12).
 * FUSE_HANDLE_KILLPRIV_V2 only for handlers that clear them where the
 * kernel says the caller may not keep them (fk_options.killpriv): judging
 * for itself costs the kernel a GETXATTR of security.capability before
 * every write(2), since it can mark an inode as having none
 * (S_NOSEC) only on a filesystem whose daemon takes the job.
 */
static uint64_t default_want(const struct fk_session *se)
{
	uint64_t want = FUSE_ASYNC_READ | FUSE_PARALLEL_DIROPS | FUSE_AUTO_INVAL_DATA |
			FUSE_ASYNC_DIO | FUSE_HAS_IOCTL_DIR |
			FUSE_ATOMIC_O_TRUNC | FUSE_BIG_WRITES | FUSE_MAX_PAGES;

	if (se->opt.killpriv)
		want |= FUSE_HANDLE_KILLPRIV_V2;
	if (se->ops->readdirplus)
		want |= FUSE_DO_READDIRPLUS | (se->ops->readdir ? FUSE_READDIRPLUS_AUTO : 0);
	return want;
}

/* Passthrough where offered and allowed; else why not, for the stats. */
static void settle_passthrough(struct fk_session *se, struct fk_conn *conn)
{
	if (!se->opt.passthrough) {
		snprintf(se->passthrough_note, sizeof(se->passthrough_note), "off:not-asked");
		return;
	}
	if (!(conn->capable & FUSE_PASSTHROUGH)) {
		snprintf(se->passthrough_note, sizeof(se->passthrough_note), "off:kernel");
		return;
	}
	/*
	 * Depth 1: backing files on a filesystem that stacks on another
	 * (overlayfs, another FUSE mount with passthrough) are refused by the
	 * kernel and served by the daemon instead (backing.c); an overlayfs
	 * may still stack on this mount.
	 */
	conn->want |= FUSE_PASSTHROUGH;
	se->max_stack_depth = 1;
}

/*
 * io_uring where the kernel offers it (it does only while the fuse module's
 * enable_uring is set) and the rings can be made; else why not, for the
 * stats, and requests keep coming by read(2).
 */
static void settle_uring(struct fk_session *se, struct fk_conn *conn)
{
	int r;

	if (!se->opt.uring) {
		snprintf(se->uring_note, sizeof(se->uring_note), "off:not-asked");
		return;
	}
	if (!(conn->capable & FUSE_OVER_IO_URING)) {
		snprintf(se->uring_note, sizeof(se->uring_note), "off:kernel");
		return;
	}
	r = fk_uring_prepare(se);
	if (r < 0) {
		fprintf(stderr, "casefoldfs: io_uring is offered but cannot be set up (%s): "
			"requests come by read(2)\n", strerror(-r));
		snprintf(se->uring_note, sizeof(se->uring_note), "off:setup");
		return;
	}
	conn->want |= FUSE_OVER_IO_URING;
}

int fk_handshake(struct fk_session *se, const char *buf, size_t len)
{
	const struct fuse_in_header *ih = (const void *)buf;
	const struct fuse_init_in *in = (const void *)(buf + sizeof(*ih));
	struct fk_init_out out = { .major = FK_PROTO_MAJOR, .minor = FK_PROTO_MINOR };
	struct fk_conn *conn = &se->conn;
	size_t inlen = len - sizeof(*ih), outlen = sizeof(out);
	struct iovec iov = { &out, 0 };
	int r;

	if (len < sizeof(*ih) + 16 || ih->opcode != FUSE_INIT) {
		fprintf(stderr, "casefoldfs: the kernel's first request is not INIT\n");
		return -1;
	}
	/* Too new a kernel proposes its major: ours goes back, INIT comes again. */
	if (in->major > FK_PROTO_MAJOR) {
		iov.iov_len = 8;
		fk_send(se->fd, ih->unique, 0, &iov, 1);
		return 1;
	}
	if (in->major < FK_PROTO_MAJOR || in->minor < 23) {
		fprintf(stderr, "casefoldfs: the kernel's FUSE protocol %u.%u is older than "
			"7.23\n", in->major, in->minor);
		fk_send(se->fd, ih->unique, EPROTO, NULL, 0);
		return -1;
	}
	conn->proto_major = in->major;
	conn->proto_minor = in->minor < FK_PROTO_MINOR ? in->minor : FK_PROTO_MINOR;
	conn->capable = in->flags;
	if ((in->flags & FUSE_INIT_EXT) && inlen >= offsetof(struct fuse_init_in, flags2) + 4)
		conn->capable |= (uint64_t)in->flags2 << 32;
	conn->max_readahead = in->max_readahead;
	conn->max_pages = FK_MAX_PAGES;
	conn->max_write = FK_MAX_PAGES * 4096;
	conn->want = default_want(se);
	if (se->ops->init)
		se->ops->init(se->data, conn);
	settle_passthrough(se, conn);
	settle_uring(se, conn);
	if (se->opt.request_timeout && (conn->capable & FUSE_REQUEST_TIMEOUT)) {
		conn->want |= FUSE_REQUEST_TIMEOUT;
		se->request_timeout = se->opt.request_timeout > 65535 ? 65535
					: se->opt.request_timeout;
	}
	conn->want &= conn->capable;
	if (conn->want >> 32)
		conn->want |= FUSE_INIT_EXT;

	out.max_readahead = conn->max_readahead;
	out.flags = (uint32_t)conn->want;
	out.flags2 = (uint32_t)(conn->want >> 32);
	out.max_write = conn->max_write;
	out.max_pages = (conn->want & FUSE_MAX_PAGES) ? conn->max_pages : 0;
	out.max_stack_depth = (conn->want & FUSE_PASSTHROUGH) ? se->max_stack_depth : 0;
	out.request_timeout = (conn->want & FUSE_REQUEST_TIMEOUT) ? se->request_timeout : 0;
	iov.iov_len = outlen;
	r = fk_send(se->fd, ih->unique, 0, &iov, 1);
	/* ENOENT: unmounted meanwhile, INIT is gone; the workers' first read ends. */
	if (r < 0 && r != -ENOENT) {
		fprintf(stderr, "casefoldfs: answering the kernel's INIT: %s\n", strerror(-r));
		return -1;
	}
	return 0;
}

