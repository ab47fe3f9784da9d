/*
 * Rendering the documentation of verbs (struct cli_doc and the options
 * table) as --help text or as roff for the manual page: one source, two
 * forms.
 */
#ifndef CLI_DOC_H
#define CLI_DOC_H

#include <stdio.h>

#include "verb.h"

/* "casefold fold [OPTION]... NAME...|-" */
void cli_doc_synopsis(FILE *f, const struct cli_verb *verb);

/* The --help text of a verb. */
void cli_doc_help(FILE *f, const struct cli_verb *verb);

/* Paragraphs (see struct cli_doc) as plain text, or as roff. */
void cli_doc_text(FILE *f, const char *const *paragraphs);
void cli_doc_roff_text(FILE *f, const char *const *paragraphs);

/* A verb as a subsection (.SS) of the manual page. */
void cli_doc_roff_verb(FILE *f, const struct cli_verb *verb);

/* s with roff's special characters escaped; lines keep their breaks. */
void cli_doc_roff_escape(FILE *f, const char *s);

#endif
