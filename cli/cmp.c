/* The verb cmp: are two names the same, by nfdi or (--nocase) nfdicf? */
#include <errno.h>
#include <string.h>

#include "diag.h"
#include "verb.h"

/* 1 equal, 0 different, or a negative error of the library. */
static int equal(const struct cli_args *args, const char *a, const char *b)
{
	size_t alen = strlen(a), blen = strlen(b);
	int r;

	/* Strict rejects every invalid name, even one the comparison tolerates. */
	if (args->strict &&
	    ((r = cf_validate(&args->enc, a, alen)) < 0 ||
	     (r = cf_validate(&args->enc, b, blen)) < 0))
		return r;
	if (args->nocase) {
		/* The library's own rule of a casefolded directory. */
		return cf_name_match(&args->enc, a, alen, b, blen);
	}
	/*
	 * nfdi has no such library call; follow the same policy: a name the
	 * comparison rejects (only without --strict now) is opaque bytes and
	 * equals only itself.
	 */
	r = cf_normalize_equal(&args->enc, a, alen, b, blen);
	if (r == -EINVAL)
		return alen == blen && memcmp(a, b, alen) == 0;
	return r;
}

static int run_cmp(const struct cli_args *args)
{
	int r = equal(args, args->operands[0], args->operands[1]);

	if (r < 0) {
		cli_error("cmp: %s", cf_strerror(r));
		return CLI_EXIT_TROUBLE;
	}
	return r ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

const struct cli_verb cli_verb_cmp = {
	.name = "cmp",
	.options = CLI_OPTS_RULE | CLI_OPT_NOCASE,
	.min_operands = 2,
	.max_operands = 2,
	.run = run_cmp,
	.doc = {
		.operands = "A B",
		.summary = "tell whether two names are the same",
		.text = (const char *const[]){
			"Compare the names A and B and print nothing: the exit status\n"
			"is the answer.  By default they are compared by nfdi, that is\n"
			"case-sensitively but up to canonical equivalence (U+00C5 and\n"
			"A U+030A are equal; a and A are not).  With --nocase they are\n"
			"compared by nfdicf, the rule of a case-insensitive directory:\n"
			"equal means that both names open the same file there.",
			"Without --strict a name that is not valid for the encoding is\n"
			"compared as opaque bytes, as the kernel does: it equals only\n"
			"itself.  With --strict it is an error.",
			" $ casefold cmp --nocase 'Straße' STRASSE && echo same\n"
			" same",
			"Exit status: 0 if the names are equal, 1 if they differ, 2 for\n"
			"an invalid name with --strict or a usage error.",
			NULL,
		},
	},
};
