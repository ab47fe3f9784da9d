/*
 * The entries of one directory, read in full and sorted bytewise, so that
 * everything built on a listing (reports, plans) comes out in the same
 * order on every run.  Names live in one arena: a directory of a million
 * entries costs about its names plus 16 bytes each.
 */
#ifndef CLI_DIRLIST_H
#define CLI_DIRLIST_H

#include <stddef.h>
#include <stdint.h>

struct cli_entry {
	size_t off;          /* of the name in the arena (NUL-terminated) */
	uint32_t len;
	unsigned char type;  /* DT_* from readdir; DT_UNKNOWN if it did not say */
};

struct cli_dirlist {
	char *arena;
	size_t used, cap;
	struct cli_entry *e;
	size_t n, ecap;
};

/*
 * Replace the contents of l with the entries of the directory dirfd (".",
 * ".." left out), sorted bytewise.  dirfd stays open and unmoved.
 * Returns 0 or -errno.
 */
int cli_dirlist_read(struct cli_dirlist *l, int dirfd);

/* Append one entry (for lists built by hand); returns 0 or -ENOMEM. */
int cli_dirlist_add(struct cli_dirlist *l, const char *name, size_t len,
		    unsigned char type);

static inline const char *cli_dirlist_name(const struct cli_dirlist *l, size_t i)
{
	return l->arena + l->e[i].off;
}

void cli_dirlist_free(struct cli_dirlist *l);

/* Open a directory for reading without touching its atime where allowed. */
int cli_open_dir(int dirfd, const char *name, int flags);

#endif
