/*
 * The second pass of casefold convert, which changes the tree.  Each
 * directory that is not casefolded and not empty is replaced in four
 * steps, each atomic and each announced in the journal first:
 *   1. mkdir TEMP beside it, casefolded, with its extended attributes;
 *   2. rename(2) every entry into TEMP (with RENAME_NOREPLACE, under its
 *      planned new name if it has one), then copy owner and mode;
 *   3. renameat2(RENAME_EXCHANGE) the directory and TEMP;
 *   4. rmdir the old directory, now empty, under the name TEMP.
 * An empty directory just gets the flag.  Then its subdirectories are
 * converted likewise, and its times are restored.  A file is in one
 * directory or the other at every moment, never both, never neither.
 * After a crash the state of the directory in progress is read back from
 * the filesystem (which of the two is casefolded) and the work resumes.
 */
#ifndef CLI_CONVERT_RUN_H
#define CLI_CONVERT_RUN_H

#include <stdint.h>

#include "convert/journal.h"
#include "progress.h"

struct cli_convert {
	int top;                 /* the parent of the directory */
	const char *base;        /* the directory's name in top */
	const char *root_temp;   /* the name of its replacement, in top */
	const char *shown;       /* the directory as the user named it */
	struct cli_journal *j;
	struct cli_progress progress;
	uint64_t moved, converted;
	/* Test hook: _exit after this many steps (CASEFOLD_CONVERT_CRASH_AFTER). */
	unsigned long crash_after, steps;
};

/* Convert or finish converting.  Returns 0, or -errno after saying why. */
int cli_convert_run(struct cli_convert *c);

#endif
