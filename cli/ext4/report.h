/*
 * The findings of ext4 audit, as text lines or as one JSON object, counted
 * as problems (exit status 1) or notes (reported, harmless).
 */
#ifndef CLI_EXT4_REPORT_H
#define CLI_EXT4_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ext4/htree.h"

struct cli_ext4_report {
	FILE *f;
	bool json;
	size_t problems, notes, misplaced;
};

/* A directory entry: the name's bytes and its inode. */
struct cli_ext4_report_name {
	const char *name;
	size_t len;
	uint32_t ino;
};

/* The directory a finding is about: its path and inode. */
struct cli_ext4_report_dir {
	const char *path;
	uint32_t ino;
};

void cli_ext4_report_begin(struct cli_ext4_report *r, const char *image, const char *encoding,
		      unsigned encoding_flags);

/* A name that is not valid UTF-8: a problem if the file system is strict. */
void cli_ext4_report_invalid(struct cli_ext4_report *r, const struct cli_ext4_report_dir *d,
			const struct cli_ext4_report_name *n, bool strict);

/* Names that fold equal: the kernel reaches only one of them. */
void cli_ext4_report_fold_equal(struct cli_ext4_report *r, const struct cli_ext4_report_dir *d,
			   const struct cli_ext4_report_name *names, size_t count);

/*
 * A name in htree block lblk that its hash does not lead to.  leaf is the
 * block's range (NULL: the index leads nowhere there); other says whether
 * the hash under the other ignorable policy fits.
 */
void cli_ext4_report_misplaced(struct cli_ext4_report *r, const struct cli_ext4_report_dir *d,
			  const struct cli_ext4_report_name *n, uint32_t lblk, uint32_t hash,
			  const struct cli_htree_leaf *leaf, bool other, bool keep_ignorables);

/* Anything else wrong with a directory (damaged index, unreadable block). */
void cli_ext4_report_damage(struct cli_ext4_report *r, const struct cli_ext4_report_dir *d, const char *what);

/* The counts, and what misplaced names mean on this file system. */
void cli_ext4_report_end(struct cli_ext4_report *r, size_t dirs, size_t names, size_t encrypted,
		    bool no_compat_fallback);

#endif
