/*
 * The first, read-only pass of casefold convert: walk the tree, find the
 * names that would collide (as audit does) and, with --on-collision=rename,
 * choose their new names.  Renames are keyed by the final path of their
 * directory, that is, after the renames of its ancestors.
 */
#ifndef CLI_CONVERT_PLAN_H
#define CLI_CONVERT_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "convert/journal.h"
#include "tree/findings.h"
#include "tree/report.h"

struct cli_plan {
	/* Inputs. */
	const struct cli_rules *rules;
	const char *root;      /* the directory, as walked */
	bool rename;           /* else collisions are listed through report */
	struct cli_audit_report *report;
	FILE *out;             /* where each planned rename is printed */
	/* Outputs. */
	struct cli_journal *j; /* renames are appended to j->renames */
	uint64_t directories, convert, entries; /* seen; to convert; to move */
	uint64_t collisions, invalid, errors;
	int unsupported;       /* -errno if the flag cannot be read */
	char **invalid_paths;  /* names a strict filesystem would refuse */
};

/* Returns 0 or -ENOMEM; problems found are counted in the plan. */
int cli_plan_tree(struct cli_plan *p);

void cli_plan_free(struct cli_plan *p);

/*
 * The name the e2fsck way: name~0, name~1, ... (the first free one),
 * cutting name at a character boundary to stay within 255 bytes.
 * Written to out (256 bytes).
 */
void cli_plan_suffix(char *out, const char *name, unsigned k);

#endif
