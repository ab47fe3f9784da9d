/*
 * fsnull: a daemon that does nothing, to measure a request loop alone.
 * One directory in which every name is an empty file, its node number a
 * hash of the name: answered from arithmetic, served by libfuse 3.14's
 * multi-threaded loop (as casefoldfs ran it: 64 threads at most, no
 * clone_fd) or by fs/kernel's (bench/transport.sh).
 *
 *   fsnull libfuse|fk MOUNTPOINT   (foreground; ends at unmount)
 *
 * Entries are cached for an hour and attributes not at all, so the first
 * stat of a name costs a LOOKUP and every later one a GETATTR.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUSE_USE_VERSION FUSE_MAKE_VERSION(3, 12)
#include <fuse_lowlevel.h>

#include "kernel/fusermount.h"
#include "kernel/reply.h"
#include "kernel/session.h"
#include "nullfs.h"

/* The node of a name of the root (never 0 or 1), or 0 elsewhere. */
static uint64_t node_of(uint64_t parent, const char *name)
{
	return parent == FUSE_ROOT_ID ? nullfs_hash(name) | 2 : 0;
}

static void attr_of(uint64_t ino, struct stat *st)
{
	nullfs_attr(st, ino, ino == FUSE_ROOT_ID, 0);
}

static void lf_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e = { .entry_timeout = 3600 };

	e.ino = node_of(parent, name);
	if (!e.ino) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	attr_of(e.ino, &e.attr);
	fuse_reply_entry(req, &e);
}

static void lf_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	attr_of(ino, &st);
	fuse_reply_attr(req, &st, 0);
}

static void lf_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	(void)ino;
	(void)nlookup;
	fuse_reply_none(req);
}

static const struct fuse_lowlevel_ops lf_ops = {
	.lookup = lf_lookup, .getattr = lf_getattr, .forget = lf_forget,
};

static void fk_lookup(fk_req_t req, fk_ino_t parent, const char *name)
{
	struct fk_entry_param e = { .entry_timeout = 3600 };

	e.ino = node_of(parent, name);
	if (!e.ino) {
		fk_reply_err(req, ENOENT);
		return;
	}
	attr_of(e.ino, &e.attr);
	fk_reply_entry(req, &e);
}

static void fk_getattr(fk_req_t req, fk_ino_t ino, struct fk_file_info *fi)
{
	struct stat st;

	(void)fi;
	attr_of(ino, &st);
	fk_reply_attr(req, &st, 0);
}

static void fk_forget(fk_req_t req, fk_ino_t ino, uint64_t nlookup)
{
	(void)ino;
	(void)nlookup;
	fk_reply_none(req);
}

static const struct fk_ops fk_ops = {
	.lookup = fk_lookup, .getattr = fk_getattr, .forget = fk_forget,
};

static int run_libfuse(struct fuse_args *args, const char *mnt)
{
	struct fuse_session *se = fuse_session_new(args, &lf_ops, sizeof(lf_ops), NULL);
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();
	int r = 1;

	if (!se || !cfg || fuse_set_signal_handlers(se) != 0 || fuse_session_mount(se, mnt) != 0)
		return 1;
	fuse_loop_cfg_set_max_threads(cfg, 64);
	r = fuse_session_loop_mt(se, cfg);
	fuse_session_unmount(se);
	fuse_loop_cfg_destroy(cfg);
	fuse_session_destroy(se);
	return r ? 1 : 0;
}

static int run_fk(struct fuse_args *args, const char *mnt)
{
	struct fk_options opt = { .max_threads = 64 };
	struct fuse_session *lse;
	struct fk_session *se;
	int fd = fk_mount(&lse, args, mnt), r;

	if (fd < 0)
		return 1;
	se = fk_session_new(fd, &fk_ops, NULL, &opt);
	r = se ? fk_session_loop(se) : 1;
	fk_session_destroy(se);
	fk_unmount(lse);
	return r;
}

int main(int argc, char *argv[])
{
	char *fake[] = { argv[0], "-odefault_permissions,fsname=fsnull,subtype=fsnull" };
	struct fuse_args args = FUSE_ARGS_INIT(2, fake);
	int r;

	if (argc != 3 || (strcmp(argv[1], "libfuse") != 0 && strcmp(argv[1], "fk") != 0)) {
		fprintf(stderr, "usage: fsnull libfuse|fk MOUNTPOINT\n");
		return 2;
	}
	r = strcmp(argv[1], "fk") == 0 ? run_fk(&args, argv[2]) : run_libfuse(&args, argv[2]);
	return r;
}
