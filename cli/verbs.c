/*
 * The table of verbs: what main dispatches on and what help lists.  Apart
 * from both so that each reaches it one way.
 */
#include <string.h>

#include "verb.h"

const struct cli_verb *const cli_verbs[] = {
	&cli_verb_fold,
	&cli_verb_normalize,
	&cli_verb_cmp,
	&cli_verb_validate,
	&cli_verb_hash,
	&cli_verb_ext4,
	&cli_verb_versions,
	&cli_verb_audit,
	&cli_verb_convert,
	&cli_verb_view,
	&cli_verb_help,
	NULL,
};

const struct cli_verb *cli_find_verb(const char *name)
{
	for (const struct cli_verb *const *v = cli_verbs; *v; v++)
		if (strcmp((*v)->name, name) == 0)
			return *v;
	return NULL;
}
