/*
 * INIT: what the kernel offers, what the daemon takes, and the record of
 * it that the stats xattr shows (fs/kernel/DESIGN.md, "Kernel features").
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/session.h"

/*
 * The largest request is a WRITE of max_write bytes after its headers;
 * max_pages pages of 4 KiB, as libfuse 3.14 asks, so that both loops move
 * the same amount per request.
 */
#define MAX_PAGES 256
#define HEADROOM 4096

struct fk_session *fk_session_new(int fd, const struct fk_ops *ops, void *data,
				  const struct fk_options *opt)
{
	struct fk_session *se = calloc(1, sizeof(*se));
	sigset_t stop;

	if (!se)
		return NULL;
	se->fd = fd;
	se->ops = ops;
	se->data = data;
	se->opt = *opt;
	if (se->opt.max_threads == 0)
		se->opt.max_threads = 1;
	se->bufsize = (size_t)MAX_PAGES * 4096 + HEADROOM;
	pthread_mutex_init(&se->lock, NULL);
	pthread_mutex_init(&se->backing_lock, NULL);
	/*
	 * The signals that end the daemon are taken by the loop's sigwait
	 * (loop.c) alone: blocked here, before any other thread starts, every
	 * thread inherits the mask.  A write to a connection the kernel has
	 * closed must fail, not kill.
	 */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigaddset(&stop, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	return se;
}

void fk_session_destroy(struct fk_session *se)
{
	if (!se)
		return;
	for (size_t i = 0; i < sizeof(se->backings) / sizeof(se->backings[0]); i++)
		while (se->backings[i]) {
			struct fk_backing *b = se->backings[i];

			se->backings[i] = b->next;
			free(b);
		}
	pthread_mutex_destroy(&se->lock);
	pthread_mutex_destroy(&se->backing_lock);
	free(se);
}

/*
 * What every mount takes where the kernel offers it, before the init
 * handler's say: libfuse 3.14's defaults for a low-level daemon (the
 * handlers were tuned on them), and requests of MAX_PAGES pages.  Never
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

int fk_session_init(struct fk_session *se, const char *buf, size_t len)
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
	conn->max_pages = MAX_PAGES;
	conn->max_write = MAX_PAGES * 4096;
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

/* The INIT flags by name, for the stats xattr. */
static const struct {
	uint64_t flag;
	const char *name;
} flag_names[] = {
	{ FUSE_ASYNC_READ, "async_read" },
	{ FUSE_ATOMIC_O_TRUNC, "atomic_o_trunc" },
	{ FUSE_EXPORT_SUPPORT, "export_support" },
	{ FUSE_BIG_WRITES, "big_writes" },
	{ FUSE_DONT_MASK, "dont_mask" },
	{ FUSE_HAS_IOCTL_DIR, "ioctl_dir" },
	{ FUSE_AUTO_INVAL_DATA, "auto_inval_data" },
	{ FUSE_DO_READDIRPLUS, "readdirplus" },
	{ FUSE_READDIRPLUS_AUTO, "readdirplus_auto" },
	{ FUSE_ASYNC_DIO, "async_dio" },
	{ FUSE_PARALLEL_DIROPS, "parallel_dirops" },
	{ FUSE_HANDLE_KILLPRIV, "handle_killpriv" },
	{ FUSE_HANDLE_KILLPRIV_V2, "handle_killpriv_v2" },
	{ FUSE_POSIX_ACL, "posix_acl" },
	{ FUSE_MAX_PAGES, "max_pages" },
	{ FUSE_PASSTHROUGH, "passthrough" },
	{ FUSE_REQUEST_TIMEOUT, "request_timeout" },
	{ FUSE_OVER_IO_URING, "over_io_uring" },
};

int fk_session_describe(const struct fk_session *se, char *buf, size_t len)
{
	const struct fk_conn *c = &se->conn;
	const char *sep = "";
	size_t used;
	int n;

	n = snprintf(buf, len, "protocol %u.%u workers %u init ", c->proto_major, c->proto_minor,
		     se->nworkers);
	for (size_t i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
		if (n >= 0 && (size_t)n < len && (c->want & flag_names[i].flag)) {
			n += snprintf(buf + n, len - (size_t)n, "%s%s", sep, flag_names[i].name);
			sep = ",";
		}
	if (n < 0 || (size_t)n >= len)
		return -ERANGE;
	used = (size_t)n;
	n = snprintf(buf + used, len - used,
		     " max_write %u max_readahead %u max_stack_depth %u request_timeout %u "
		     "passthrough %s backing_opened %lu backing_refused %lu",
		     c->max_write, c->max_readahead,
		     (c->want & FUSE_PASSTHROUGH) ? se->max_stack_depth : 0,
		     (c->want & FUSE_REQUEST_TIMEOUT) ? se->request_timeout : 0,
		     (c->want & FUSE_PASSTHROUGH) ? "on" : se->passthrough_note,
		     atomic_load(&se->backing_opened), atomic_load(&se->backing_refused));
	if (n < 0 || (size_t)n >= len - used)
		return -ERANGE;
	used += (size_t)n;
	if (used + 1 >= len)
		return -ERANGE;
	buf[used++] = ' ';
	n = fk_uring_describe(se, buf + used, len - used);
	if (n < 0 || (size_t)n >= len - used)
		return -ERANGE;
	return (int)(used + (size_t)n);
}
