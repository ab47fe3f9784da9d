/*
 * What audit reports about one directory, and what convert must resolve
 * first.  Every name comparison is libcasefold's: names are bucketed by
 * cf_name_hash and confirmed with cf_name_match.
 */
#ifndef CLI_FINDINGS_H
#define CLI_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "casefold.h"
#include "tree/dirlist.h"

enum cli_finding_kind {
	CLI_COLLISION,  /* names equal under the chosen rule */
	CLI_IGNORABLE,  /* equal with ignorables stripped, different with them kept */
	CLI_INVALID,    /* one name not valid for the encoding */
};

/* One finding: entries of the listing, in bytewise order. */
struct cli_finding {
	enum cli_finding_kind kind;
	const size_t *idx;
	size_t n;
};

/* The rules a directory is checked against. */
struct cli_rules {
	cf_encoding rule;   /* the chosen encoding and --ignorables */
	cf_encoding strip;  /* the same Unicode version, ignorables stripped */
	cf_encoding keep;   /* ... and kept */
	bool ignorables;    /* the encoding has ignorables to check (not ascii) */
};

/* Derive the rules from the encoding of the command line. */
void cli_rules_init(struct cli_rules *r, const cf_encoding *chosen);

/* Which kinds to look for. */
enum { CLI_FIND_COLLISIONS = 1, CLI_FIND_IGNORABLES = 2, CLI_FIND_INVALID = 4,
       CLI_FIND_ALL = 7 };

typedef int cli_finding_fn(void *ctx, const struct cli_finding *f);

/*
 * Call fn for each finding of l: the collision sets ordered by their first
 * name, then the ignorable sets likewise, then each invalid name.
 * Returns 0, fn's first non-zero result, or -ENOMEM.
 */
int cli_findings(const struct cli_rules *r, const struct cli_dirlist *l, unsigned what,
		 cli_finding_fn *fn, void *ctx);

#endif
