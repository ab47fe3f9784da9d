/*
 * A session's making, its record for the stats xattr (what INIT settled,
 * fs/kernel/DESIGN.md, "Kernel features"), and its freeing.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/backing.h"
#include "kernel/internal.h"
#include "kernel/session.h"
#include "kernel/uring.h"

/* Room for a request's headers before a WRITE's max_write bytes. */
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
	se->bufsize = (size_t)FK_MAX_PAGES * 4096 + HEADROOM;
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
	fk_backing_forget_all(se);
	pthread_mutex_destroy(&se->lock);
	pthread_mutex_destroy(&se->backing_lock);
	free(se);
}

unsigned fk_session_stuck(const struct fk_session *se)
{
	return se->stuck;
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
