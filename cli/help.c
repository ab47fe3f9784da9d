/*
 * The verb help and the tool-wide documentation.  The manual page is
 * generated from the same data as --help (casefold help --man).
 */
#include <string.h>

#include "diag.h"
#include "doc.h"
#include "help.h"
#include "verb.h"

static const char summary[] =
	"normalize, case-fold and compare file names as Linux does";

static const char *const overview[] = {
	"casefold applies the name rules of Linux's case-insensitive\n"
	"directories (ext4 and f2fs casefolding, fs/unicode) byte for byte,\n"
	"for every Unicode version from 1.1.0 to the latest: nfdi is the\n"
	"canonical decomposition of a name without its Default_Ignorable code\n"
	"points, nfdicf is nfdi with full case folding.  Two names are the same\n"
	"file in a casefolded directory when their nfdicf forms are equal.",
	"The default encoding is utf8-12.1.0, the only one ext4 records on\n"
	"disk; --encoding selects another Unicode version or ascii.",
	"Exit status: 0 on success, 1 when some name failed (cmp: the names\n"
	"differ), 2 for a usage error, unreadable input or a write error.",
	NULL,
};

void cli_help_version(FILE *f)
{
	fprintf(f, "casefold %s\nUnicode data %s\n", CF_VERSION_STRING,
		cf_unicode_data_version());
}

void cli_help_global(FILE *f)
{
	fprintf(f, "Usage: casefold VERB [OPTION]... [OPERAND]...\n"
		"       casefold --help | --version\n"
		"Normalize, case-fold and compare file names as Linux does.\n"
		"\nVerbs:\n");
	for (const struct cli_verb *const *v = cli_verbs; *v; v++)
		fprintf(f, "  %-11s %s\n", (*v)->name, (*v)->doc.summary);
	cli_doc_text(f, overview);
	fputs("\nRun 'casefold VERB --help' for the options of a verb.\n", f);
}

/* The whole manual page, casefold(1), in roff. */
static void man_page(FILE *f)
{
	fprintf(f, ".TH CASEFOLD 1 \"\" \"casefold %s\" \"User Commands\"\n"
		".SH NAME\ncasefold \\- ", CF_VERSION_STRING);
	cli_doc_roff_escape(f, summary);
	fputs("\n.SH SYNOPSIS\n"
	      ".B casefold\n.I verb\n[\\fIoption\\fR]... [\\fIoperand\\fR]...\n.br\n"
	      ".B casefold \\-\\-help\n.br\n.B casefold \\-\\-version\n"
	      ".SH DESCRIPTION\n", f);
	cli_doc_roff_text(f, overview);
	fputs(".SH VERBS\n", f);
	for (const struct cli_verb *const *v = cli_verbs; *v; v++)
		cli_doc_roff_verb(f, *v);
}

static int run_help(const struct cli_args *args)
{
	const struct cli_verb *verb;

	if (args->man && args->noperands)
		return cli_usage("help", "--man takes no verb: the page covers them all");
	if (args->man) {
		man_page(stdout);
		return CLI_EXIT_OK;
	}
	if (!args->noperands) {
		cli_help_global(stdout);
		return CLI_EXIT_OK;
	}
	verb = cli_find_verb(args->operands[0]);
	if (!verb)
		return cli_usage("help", "unknown verb '%s'", args->operands[0]);
	cli_doc_help(stdout, verb);
	return CLI_EXIT_OK;
}

const struct cli_verb cli_verb_help = {
	.name = "help",
	.options = CLI_OPT_MAN,
	.min_operands = 0,
	.max_operands = 1,
	.run = run_help,
	.doc = {
		.operands = "[VERB]",
		.summary = "show the help of a verb, or the manual page",
		.text = (const char *const[]){
			"Print the help of VERB, the same as 'casefold VERB --help',\n"
			"or the overview without VERB.  With --man, print the manual\n"
			"page casefold(1), generated from the same text.",
			NULL,
		},
	},
};
