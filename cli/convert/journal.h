/*
 * The journal of casefold convert: the plan, written once and atomically
 * before anything changes, then one record per step that a crash could
 * leave half-done.  It lives beside the converted directory, in DIR/..,
 * and is removed when the conversion is complete.
 *
 * Text, one record a line, every name or path in hex after an 'x' (names
 * are bytes; an empty path is "x"):
 *   casefold-convert 1
 *   rule ENCODING strip|keep
 *   policy abort|rename
 *   entries N                     entries to move, for the progress line
 *   R DIR OLD NEW                 a planned rename; DIR is a final path
 *   plan                          the plan is complete
 *   B PATH TEMP AS ANS MS MNS     converting PATH (relative to DIR) through
 *                                 the new directory TEMP beside it; its
 *                                 original atime and mtime
 *   K PATH AS ANS MS MNS          PATH's times, before its children change it
 *   D PATH                        PATH and everything below are done
 * B and K records open, D closes, like a stack: the open ones are the
 * directories on the current branch.  Records are appended with write()
 * and fdatasync(), so a record is on disk before the step it announces.
 */
#ifndef CLI_JOURNAL_H
#define CLI_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct cli_rename {
	char *dir, *old, *new; /* NUL-terminated: names never hold NUL */
};

struct cli_pending {
	char *path;
	char *temp;               /* B: the new directory's name; K: NULL */
	struct timespec times[2]; /* atime, mtime, for utimensat */
};

struct cli_journal {
	int fd;                     /* open for appending, -1 before */
	char rule[64];              /* encoding name */
	bool keep_ignorables;
	bool rename;                /* policy */
	uint64_t entries;
	struct cli_rename *renames; /* sorted by dir, then old */
	size_t nrenames;
	struct cli_pending *stack;  /* open B and K records, oldest first */
	size_t depth, cap;
	bool last_begin;            /* the last record is the B on top */
};

/*
 * Write the header and renames to NAME.tmp in dirfd, sync it, rename it to
 * NAME: the journal exists complete or not at all.  renames are sorted
 * here and owned by j afterwards.  Returns 0 or -errno.
 */
int cli_journal_create(struct cli_journal *j, int dirfd, const char *name);

/* Read the journal NAME in dirfd.  Returns 0, -ENOENT, -EINVAL (damaged)
 * or another -errno. */
int cli_journal_load(struct cli_journal *j, int dirfd, const char *name);

/* Append B, K or D; D pops the top of the stack.  Returns 0 or -errno. */
int cli_journal_begin(struct cli_journal *j, const char *path, const char *temp,
		      const struct timespec times[2]);
int cli_journal_keep(struct cli_journal *j, const char *path, const struct timespec times[2]);
int cli_journal_done(struct cli_journal *j, const char *path);

/* The open record for path, or NULL. */
struct cli_pending *cli_journal_pending(struct cli_journal *j, const char *path);

/* The planned new name of old in the directory dir, or NULL. */
const char *cli_journal_renamed(const struct cli_journal *j, const char *dir, const char *old);

void cli_journal_free(struct cli_journal *j);

#endif
