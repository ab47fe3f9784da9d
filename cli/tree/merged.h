/*
 * Collisions one level down: directories whose names collide (Icons and
 * icons) become one directory once casefolded (tar x or rsync -a into a
 * casefolded directory merges them), and then their entries may collide
 * too (Icons/app.ico and icons/App.ico), which no single listing shows.
 */
#ifndef CLI_TREE_MERGED_H
#define CLI_TREE_MERGED_H

#include "tree/dirlist.h"
#include "tree/findings.h"

/* A collision set of entries from two or more of the merged directories;
 * m's names are paths relative to the audited directory ("Icons/app.ico"). */
typedef int cli_merged_fn(void *ctx, const struct cli_dirlist *m, const struct cli_finding *f);

/*
 * set is a collision set of l, the listing of the directory dirfd: when
 * two or more of its entries are directories, lists them as one and calls
 * fn for every collision set spanning two of them, then goes down into the
 * sets of directories among those.  Returns 0, fn's first non-zero result,
 * or -errno (a directory that cannot be read is skipped).
 */
int cli_merged_collisions(const struct cli_rules *r, int dirfd, const struct cli_dirlist *l,
			  const struct cli_finding *set, cli_merged_fn *fn, void *ctx);

#endif
