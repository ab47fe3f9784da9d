/*
 * Depth-first walk of directory trees with openat/fdopendir: each
 * directory is read in full, handed to a visitor, and then only the names
 * of its subdirectories are kept while the walk descends, so memory grows
 * with the largest directory and the depth, never with the tree.
 * Directories are visited in bytewise order of their names.
 */
#ifndef CLI_WALK_H
#define CLI_WALK_H

#include <stdbool.h>
#include <stdint.h>

#include "progress.h"
#include "tree/dirlist.h"

struct cli_walk {
	bool follow;        /* descend through symlinks to directories */
	bool cross_mounts;  /* descend into mount points */
	/*
	 * A directory: path as the user would name it, an open descriptor
	 * and its sorted entries.  Returns 0 to go on, or a negative errno
	 * that stops the walk and is returned by cli_walk.
	 */
	int (*visit)(void *ctx, const char *path, int dirfd, const struct cli_dirlist *l);
	/* Something under path could not be read; the walk goes on. */
	void (*error)(void *ctx, const char *path, int err);
	/* A mount point or symlink left out (may be NULL). */
	void (*skipped)(void *ctx, const char *path, const char *why);
	void *ctx;
	struct cli_progress *progress; /* may be NULL */
	uint64_t directories, entries; /* counted by the walk */
};

/*
 * Walk the tree at root (a symlink given as root is followed).  Returns 0,
 * the visitor's error, or -errno if root itself cannot be read (reported
 * through error as well).
 */
int cli_walk(struct cli_walk *w, const char *root);

/* Raise the open-file limit to its maximum: the walk holds one per level. */
void cli_walk_raise_fd_limit(void);

#endif
