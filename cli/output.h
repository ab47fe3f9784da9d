/*
 * Writing results: one line per name, in input order, through stdio's
 * buffer (never flushed per name), as raw bytes or lowercase hex, ended by
 * a newline or, with -0, a NUL byte.
 */
#ifndef CLI_OUTPUT_H
#define CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct cli_out {
	FILE *f;
	bool hex;  /* --hex: results as lowercase hex bytes */
	char end;  /* '\n', or '\0' with -0 */
};

/* A result: the bytes s[0..len), in hex with --hex. */
void cli_out_result(const struct cli_out *out, const char *s, size_t len);

/* A fixed word such as "valid", never in hex. */
void cli_out_word(const struct cli_out *out, const char *word);

/* "error: <reason>" in place of the result of a name that failed. */
void cli_out_error(const struct cli_out *out, const char *reason);

#endif
