/*
 * The command line of casefoldfs, written once.  --help prints it as text;
 * build/mkman renders the same data as roff into the manual page
 * casefoldfs(8) (man/casefoldfs.8.in), so the two cannot drift apart.
 */
#ifndef CFS_USAGE_H
#define CFS_USAGE_H

#include <stdio.h>

#define CFS_USAGE_SYNOPSIS "[-f] [-d] [-o OPTIONS] BACKING MOUNTPOINT"
/* An overlay view (-o lowerdir=...): SOURCE is only a label. */
#define CFS_USAGE_VIEW "[-f] [-d] -o lowerdir=DIRS[,upperdir=DIR,workdir=DIR] [SOURCE] MOUNTPOINT"

/* One -o option of casefoldfs's own (FUSE's are libfuse's to document). */
struct cfs_usage_opt {
	const char *name;       /* "casefold" */
	const char *arg;        /* "ENCODING", or NULL for a flag */
	const char *help;       /* lines of at most 52 columns, broken by \n */
};

/* Both arrays end with a NULL entry. */
extern const struct cfs_usage_opt cfs_usage_opts[];
/* Paragraphs after the options: lines of at most 76 columns. */
extern const char *const cfs_usage_notes[];

/* "usage: PROG [-f] [-d] [-o OPTIONS] BACKING MOUNTPOINT\n", and the view's. */
void cfs_usage_line(FILE *f, const char *prog);

/*
 * The usage line, every casefoldfs option and the notes, as --help text,
 * ending with the heading of libfuse's options, which the caller prints.
 */
void cfs_usage(FILE *f, const char *prog);

#endif
