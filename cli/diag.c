/* Diagnostics: everything the tool says on standard error goes through here. */
#include <stdarg.h>
#include <stdio.h>

#include "diag.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("casefold: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fputs("casefold: ", stderr);
	if (verb)
		fprintf(stderr, "%s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'casefold %s%s--help' for more information.\n",
		verb ? verb : "", verb ? " " : "");
	return CLI_EXIT_TROUBLE;
}
