/* The verb validate: is each name valid for the encoding? */
#include "operands.h"
#include "verb.h"

static int validate_one(void *ctx, const struct cli_out *out,
			const char *name, size_t len)
{
	const cf_encoding *enc = ctx;
	int err = cf_validate(enc, name, len);

	if (err < 0) {
		cli_out_error(out, cf_strerror(err));
		return 1;
	}
	cli_out_word(out, "valid");
	return 0;
}

static int run_validate(const struct cli_args *args)
{
	cf_encoding enc = args->enc;

	return cli_for_each_name(args, validate_one, &enc);
}

const struct cli_verb cli_verb_validate = {
	.name = "validate",
	.options = CLI_OPT_ENCODING | CLI_OPT_NUL,
	.min_operands = 1,
	.max_operands = -1,
	.run = run_validate,
	.doc = {
		.operands = "NAME...|-",
		.summary = "check that names are valid for an encoding",
		.text = (const char *const[]){
			"Print \"valid\" for each NAME that is valid for the encoding,\n"
			"or \"error: <reason>\" for one that is not: for UTF-8, one that\n"
			"is not well-formed, including a stray continuation byte that\n"
			"fold and normalize would pass through as the kernel does; for\n"
			"ascii, one with a byte above 0x7f.  These are the names ext4's\n"
			"strict mode refuses.  Unassigned code points are valid.  A NUL\n"
			"byte ends a name, as in the kernel.",
			cli_names_doc,
			"Exit status: 0 if every name is valid, 1 otherwise, 2 for a\n"
			"usage error or unreadable input.",
			NULL,
		},
	},
};
