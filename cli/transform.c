/* The verbs fold and normalize: print the nfdicf or nfdi form of names. */
#include <errno.h>
#include <stdlib.h>

#include "diag.h"
#include "operands.h"
#include "verb.h"

typedef ssize_t transform_fn(const cf_encoding *enc, const char *s, size_t len,
			     char *dst, size_t dlen);

struct transform {
	const struct cli_args *args;
	transform_fn *fn;
	char *buf;   /* reused for every name; grows, never shrinks */
	size_t cap;
};

/* Make room for at least want bytes; exits on failure, like any allocator. */
static void reserve(struct transform *t, size_t want)
{
	if (want <= t->cap)
		return;
	free(t->buf);
	t->buf = malloc(want);
	if (!t->buf) {
		cli_error("out of memory");
		exit(CLI_EXIT_TROUBLE);
	}
	t->cap = want;
}

static int transform_one(void *ctx, const struct cli_out *out,
			 const char *name, size_t len)
{
	struct transform *t = ctx;
	ssize_t n;

	if (t->args->strict && (n = cf_validate(&t->args->enc, name, len)) < 0) {
		cli_out_error(out, cf_strerror((int)n));
		return 1;
	}
	/*
	 * Results are rarely longer than four times the name (CF_FOLD_MAX
	 * covers any 255-byte name); if one is, retry with twice the room.
	 */
	reserve(t, 4 * len + CF_FOLD_MAX);
	while ((n = t->fn(&t->args->enc, name, len, t->buf, t->cap)) == -ENAMETOOLONG)
		reserve(t, 2 * t->cap);
	if (n < 0) {
		cli_out_error(out, cf_strerror((int)n));
		return 1;
	}
	cli_out_result(out, t->buf, (size_t)n);
	return 0;
}

static int transform(const struct cli_args *args, transform_fn *fn)
{
	struct transform t = { .args = args, .fn = fn };
	int status = cli_for_each_name(args, transform_one, &t);

	free(t.buf);
	return status;
}

static int run_fold(const struct cli_args *args)
{
	return transform(args, cf_casefold);
}

static int run_normalize(const struct cli_args *args)
{
	return transform(args, cf_normalize);
}

#define TRANSFORM_OPTIONS (CLI_OPTS_RULE | CLI_OPT_HEX | CLI_OPT_NUL)

static const char transform_errors[] =
	"Names the encoding rejects yield an error line: ill-formed UTF-8\n"
	"(overlong, surrogate, truncated, beyond U+10FFFF, or a leading\n"
	"continuation byte); with --strict also the stray continuation bytes the\n"
	"kernel passes through.  A NUL byte ends a name, as in the kernel.";

static const char transform_status[] =
	"Exit status: 0 if every name was processed, 1 if some yielded an error\n"
	"line, 2 for a usage error or unreadable input.";

const struct cli_verb cli_verb_fold = {
	.name = "fold",
	.options = TRANSFORM_OPTIONS,
	.min_operands = 1,
	.max_operands = -1,
	.run = run_fold,
	.doc = {
		.operands = "NAME...|-",
		.summary = "print names normalized and case-folded (nfdicf)",
		.text = (const char *const[]){
			"Print the nfdicf form of each NAME: canonical decomposition\n"
			"with Default_Ignorable code points removed (unless\n"
			"--ignorables=keep) and full case folding, exactly as Linux's\n"
			"fs/unicode computes the name a case-insensitive directory\n"
			"stores and hashes.  Two names are the same file in such a\n"
			"directory when their folded forms are equal.",
			cli_names_doc,
			transform_errors,
			" $ casefold fold --hex 'Straße' 'STRASSE'\n"
			" 73747261737365\n"
			" 73747261737365",
			transform_status,
			NULL,
		},
	},
};

const struct cli_verb cli_verb_normalize = {
	.name = "normalize",
	.options = TRANSFORM_OPTIONS,
	.min_operands = 1,
	.max_operands = -1,
	.run = run_normalize,
	.doc = {
		.operands = "NAME...|-",
		.summary = "print names normalized, case kept (nfdi)",
		.text = (const char *const[]){
			"Print the nfdi form of each NAME: canonical decomposition\n"
			"(NFD, with the kernel's canonical ordering) with\n"
			"Default_Ignorable code points removed (unless\n"
			"--ignorables=keep); case is kept.",
			cli_names_doc,
			transform_errors,
			" $ casefold normalize --hex $'\\u00c5' $'\\u212b'\n"
			" 41cc8a\n"
			" 41cc8a",
			transform_status,
			NULL,
		},
	},
};
