/* The tool's own documentation: global help, version, manual page. */
#ifndef CLI_HELP_H
#define CLI_HELP_H

#include <stdio.h>

/* "casefold --help": the verbs and what the tool is. */
void cli_help_global(FILE *f);

/* "casefold --version". */
void cli_help_version(FILE *f);

#endif
