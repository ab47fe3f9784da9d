/* Help text and manual page, both rendered from the same data. */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "doc.h"

/* Options start here in --help, as in GNU tools. */
#define HELP_COLUMN 24

void cli_doc_synopsis(FILE *f, const struct cli_verb *verb)
{
	fprintf(f, "casefold %s%s%s%s", verb->name, verb->options ? " [OPTION]..." : "",
		*verb->doc.operands ? " " : "", verb->doc.operands);
}

void cli_doc_text(FILE *f, const char *const *paragraphs)
{
	for (const char *const *p = paragraphs; *p; p++)
		fprintf(f, "\n%s\n", *p);
}

/* "  -0, --null", "      --encoding=NAME": the flags column of --help. */
static int option_flags(FILE *f, const struct cli_option *o)
{
	int n = o->short_name ? fprintf(f, "  -%c, ", o->short_name) : fprintf(f, "      ");

	n += fprintf(f, "--%s", o->name);
	if (o->arg)
		n += fprintf(f, o->bit & CLI_OPTS_OPTIONAL_ARG ? "[=%s]" : "=%s", o->arg);
	return n;
}

void cli_doc_help(FILE *f, const struct cli_verb *verb)
{
	unsigned accepted = verb->options | CLI_OPT_HELP;

	fputs("Usage: ", f);
	cli_doc_synopsis(f, verb);
	fprintf(f, "\n%c%s.\n", toupper((unsigned char)verb->doc.summary[0]),
		verb->doc.summary + 1);
	cli_doc_text(f, verb->doc.text);
	fputs("\nOptions:\n", f);
	for (size_t i = 0; i < cli_option_count; i++) {
		const struct cli_option *o = &cli_options[i];
		int width;

		if (!(o->bit & accepted))
			continue;
		width = option_flags(f, o);
		if (width >= HELP_COLUMN - 1) {
			/* Too wide to share a line with its help. */
			putc('\n', f);
			width = 0;
		}
		/* Every line of the help starts in the same column. */
		for (const char *s = o->help;; s++) {
			size_t n = strcspn(s, "\n");

			fprintf(f, "%*s%.*s\n", HELP_COLUMN - width, "", (int)n, s);
			s += n;
			if (!*s)
				break;
			width = 0;
		}
	}
}

void cli_doc_roff_escape(FILE *f, const char *s)
{
	/* A line starting with . or ' would be a request. */
	for (bool line_start = true; *s; line_start = *s++ == '\n') {
		if (line_start && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			putc(*s, f);
	}
}

void cli_doc_roff_text(FILE *f, const char *const *paragraphs)
{
	for (const char *const *p = paragraphs; *p; p++) {
		/* Examples are shown verbatim, indented. */
		bool example = **p == ' ';

		fputs(example ? ".PP\n.RS\n.nf\n" : ".PP\n", f);
		cli_doc_roff_escape(f, *p);
		fputs(example ? "\n.fi\n.RE\n" : "\n", f);
	}
}

void cli_doc_roff_verb(FILE *f, const struct cli_verb *verb)
{
	unsigned accepted = verb->options | CLI_OPT_HELP;

	fprintf(f, ".SS %s\n.B casefold %s\n", verb->name, verb->name);
	/* \& after the dots: not the end of a sentence. */
	if (verb->options)
		fputs("[\\fIOPTION\\fR]...\\&\n", f);
	if (*verb->doc.operands) {
		fputs(".I \"", f);
		cli_doc_roff_escape(f, verb->doc.operands);
		fputs("\"\n", f);
	}
	cli_doc_roff_text(f, verb->doc.text);
	fputs(".PP\nOptions:\n", f);
	for (size_t i = 0; i < cli_option_count; i++) {
		const struct cli_option *o = &cli_options[i];

		if (!(o->bit & accepted))
			continue;
		fputs(".TP\n", f);
		if (o->short_name)
			fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
		fputs("\\fB\\-\\-", f);
		cli_doc_roff_escape(f, o->name);
		fputs("\\fR", f);
		if (o->arg) {
			fputs(o->bit & CLI_OPTS_OPTIONAL_ARG ? "[=\\fI" : "=\\fI", f);
			cli_doc_roff_escape(f, o->arg);
			fputs(o->bit & CLI_OPTS_OPTIONAL_ARG ? "\\fR]" : "\\fR", f);
		}
		putc('\n', f);
		cli_doc_roff_escape(f, o->help);
		putc('\n', f);
	}
}
