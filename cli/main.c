/*
 * casefold: the command-line face of libcasefold.  main only dispatches:
 * each verb lives in its own file and declares its options, operands, work
 * and documentation in a struct cli_verb.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "doc.h"
#include "help.h"
#include "verb.h"

static int run_verb(const struct cli_verb *verb, int argc, char **argv)
{
	struct cli_args args;
	int r = cli_parse(verb, argc, argv, &args);

	if (r == CLI_PARSED_HELP) {
		cli_doc_help(stdout, verb);
		return CLI_EXIT_OK;
	}
	return r == CLI_PARSED ? verb->run(&args) : r;
}

/* Buffered output may fail only now (a full disk): that must not pass silently. */
static int close_stdout(int status)
{
	if (fflush(stdout) != 0) {
		cli_error("write error: %s", strerror(errno));
		return CLI_EXIT_TROUBLE;
	}
	if (ferror(stdout)) {
		cli_error("write error");
		return CLI_EXIT_TROUBLE;
	}
	return status;
}

int main(int argc, char **argv)
{
	const struct cli_verb *verb;
	int status;

	if (argc < 2)
		return cli_usage(NULL, "no verb given");
	/* Millions of result lines: fewer, larger writes unless to a terminal. */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOFBF, 64 * 1024);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		cli_help_global(stdout);
		status = CLI_EXIT_OK;
	} else if (strcmp(argv[1], "--version") == 0) {
		cli_help_version(stdout);
		status = CLI_EXIT_OK;
	} else if ((verb = cli_find_verb(argv[1])) != NULL) {
		status = run_verb(verb, argc - 1, argv + 1);
	} else {
		return cli_usage(NULL, "unknown verb '%s'", argv[1]);
	}
	return close_stdout(status);
}
