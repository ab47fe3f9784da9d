/*
 * A verb of the casefold tool: its name, what it accepts, its work and its
 * documentation.  A new verb is a new file defining one of these, plus one
 * line in the table in verbs.c.
 */
#ifndef CLI_VERB_H
#define CLI_VERB_H

#include "options.h"

/*
 * The documentation of a verb, kept as data so that it can be printed as
 * --help text or as a section of the manual page (casefold help --man).
 */
struct cli_doc {
	const char *operands; /* synopsis after the options: "NAME...|-" */
	const char *summary;  /* one line, lower case, no final period */
	/*
	 * Paragraphs, NULL-terminated, lines of at most 76 columns.  A
	 * paragraph starting with a space is an example, shown verbatim.
	 */
	const char *const *text;
};

struct cli_verb {
	const char *name;
	unsigned options;    /* CLI_OPT_* accepted besides --help */
	int min_operands;
	int max_operands;    /* -1: no limit */
	/* The work, on a parsed command line; returns the exit status. */
	int (*run)(const struct cli_args *args);
	struct cli_doc doc;
};

/* Every verb, in the order help lists them; NULL-terminated (verbs.c). */
extern const struct cli_verb *const cli_verbs[];

const struct cli_verb *cli_find_verb(const char *name);

extern const struct cli_verb cli_verb_fold;
extern const struct cli_verb cli_verb_normalize;
extern const struct cli_verb cli_verb_cmp;
extern const struct cli_verb cli_verb_validate;
extern const struct cli_verb cli_verb_hash;
extern const struct cli_verb cli_verb_ext4;
extern const struct cli_verb cli_verb_versions;
extern const struct cli_verb cli_verb_help;
extern const struct cli_verb cli_verb_audit;
extern const struct cli_verb cli_verb_convert;
extern const struct cli_verb cli_verb_view;

#endif
