/* The verb versions: the encodings this build supports. */
#include <stdio.h>

#include "diag.h"
#include "verb.h"

static int run_versions(const struct cli_args *args)
{
	const char *name;

	(void)args;
	for (size_t i = 0; (name = cf_encoding_list(i)) != NULL; i++)
		puts(name);
	return CLI_EXIT_OK;
}

const struct cli_verb cli_verb_versions = {
	.name = "versions",
	.options = 0,
	.min_operands = 0,
	.max_operands = 0,
	.run = run_versions,
	.doc = {
		.operands = "",
		.summary = "list the supported encodings, latest first",
		.text = (const char *const[]){
			"Print the name of every encoding --encoding accepts, one per\n"
			"line: utf8-X.Y.Z for each Unicode version, the latest first,\n"
			"then ascii.  X.Y.Z alone and utf8 (= utf8-12.1.0) are accepted\n"
			"as aliases.",
			NULL,
		},
	},
};
