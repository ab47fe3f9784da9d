/*
 * fsfloor: the round trip's floor for bench/floor.sh and the profile of
 * issue 29 — a FUSE daemon on libfuse's low-level API (the loop casefoldfs
 * uses) that does no work at all.  Every name at the top is a directory,
 * every name below a regular file of FLOOR_BYTES bytes; a LOOKUP is
 * answered from a hash of the name, OPEN and READ from memory, without a
 * system call of its own; the kernel may keep every answer for an hour and
 * a file's pages across opens, as casefoldfs lets it where it watches.
 * What a first LOOKUP, and any OPEN, costs through the kernel and libfuse
 * alone: a daemon's cost above it is its own work.
 *
 * Usage: fsfloor [-s] MOUNTPOINT   (in the foreground; -s: one thread, as
 * bindfs runs by default; otherwise libfuse's multi-threaded loop, as
 * casefoldfs).  Unmount with fusermount3 -u.
 */
#define FUSE_USE_VERSION 314
#include <errno.h>
#include <fuse_lowlevel.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nullfs.h"

#define FLOOR_BYTES 4096
#define DIR_BIT ((fuse_ino_t)1 << 62)

static const char data[FLOOR_BYTES];

/* A node id for name, never the root's (1). */
static fuse_ino_t id_of(const char *name, bool dir)
{
	return ((nullfs_hash(name) >> 3 | 2) & ~DIR_BIT) | (dir ? DIR_BIT : 0);
}

static void attr_of(fuse_ino_t ino, struct stat *st)
{
	nullfs_attr(st, ino, ino == FUSE_ROOT_ID || (ino & DIR_BIT), FLOOR_BYTES);
	st->st_uid = getuid();
	st->st_gid = getgid();
}

static void floor_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e = { .attr_timeout = 3600, .entry_timeout = 3600 };

	e.ino = id_of(name, parent == FUSE_ROOT_ID);
	attr_of(e.ino, &e.attr);
	fuse_reply_entry(req, &e);
}

static void floor_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	attr_of(ino, &st);
	fuse_reply_attr(req, &st, 3600);
}

static void floor_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	if ((fi->flags & O_ACCMODE) != O_RDONLY) {
		fuse_reply_err(req, EROFS);
		return;
	}
	fi->noflush = 1;
	fi->keep_cache = 1;
	fuse_reply_open(req, fi);
}

static void floor_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	if (off >= FLOOR_BYTES)
		size = 0;
	else if (size > (size_t)(FLOOR_BYTES - off))
		size = (size_t)(FLOOR_BYTES - off);
	fuse_reply_buf(req, data + (off < FLOOR_BYTES ? off : 0), size);
}

static const struct fuse_lowlevel_ops ops = {
	.lookup = floor_lookup,
	.getattr = floor_getattr,
	.open = floor_open,
	.read = floor_read,
};

int main(int argc, char **argv)
{
	bool single = argc == 3 && strcmp(argv[1], "-s") == 0;
	char *fargs[] = { argv[0], "-o", "fsname=fsfloor,default_permissions", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, fargs);
	struct fuse_loop_config *cfg;
	struct fuse_session *se;
	int rc = 1;

	if (argc != 2 + single) {
		fprintf(stderr, "usage: fsfloor [-s] MOUNTPOINT\n");
		return 2;
	}
	se = fuse_session_new(&args, &ops, sizeof(ops), NULL);
	if (!se || fuse_set_signal_handlers(se) != 0)
		return 1;
	if (fuse_session_mount(se, argv[argc - 1]) == 0) {
		if (single) {
			rc = fuse_session_loop(se) != 0;
		} else {
			cfg = fuse_loop_cfg_create();
			rc = fuse_session_loop_mt(se, cfg) != 0;
			fuse_loop_cfg_destroy(cfg);
		}
		fuse_session_unmount(se);
	}
	fuse_remove_signal_handlers(se);
	fuse_session_destroy(se);
	return rc;
}
