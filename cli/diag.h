/* Diagnostics and exit statuses shared by every verb. */
#ifndef CLI_DIAG_H
#define CLI_DIAG_H

/* Exit statuses: every verb uses these three, so scripts can rely on them. */
enum {
	CLI_EXIT_OK = 0,      /* success (cmp: equal) */
	CLI_EXIT_FAIL = 1,    /* some name failed (cmp: different) */
	CLI_EXIT_TROUBLE = 2, /* usage error, unreadable input, write error */
};

/* "casefold: <message>" on standard error. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A usage error of the given verb (NULL for the top level): the message, a
 * pointer to --help, and CLI_EXIT_TROUBLE to return.
 */
int cli_usage(const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
