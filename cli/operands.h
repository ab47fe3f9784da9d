/*
 * Where names come from: the operands, where "-" stands for the names read
 * from standard input (one per line, or NUL-separated with -0), streamed
 * through a reusable buffer so that millions of names cost linear time.
 */
#ifndef CLI_OPERANDS_H
#define CLI_OPERANDS_H

#include <stddef.h>

#include "options.h"
#include "output.h"

/*
 * Longest name read from standard input.  A longer line yields the error
 * line CLI_NAME_TOO_LONG in its place and is skipped without being stored,
 * so that endless input cannot exhaust memory.  (Operands are bounded by
 * the kernel's MAX_ARG_STRLEN, 128 KiB.)
 */
#define CLI_NAME_LIMIT ((size_t)1 << 20)
#define CLI_NAME_TOO_LONG "name longer than 1048576 bytes"

/* Documentation of the above for the verbs that read names (help text). */
extern const char cli_names_doc[];

/*
 * The work on one name: writes exactly one result line to out and returns
 * 0, or 1 if the name failed (it then wrote an "error: " line).
 */
typedef int cli_name_fn(void *ctx, const struct cli_out *out,
			const char *name, size_t len);

/*
 * Call fn on every name of args, in order, with results going to standard
 * output.  Returns CLI_EXIT_OK, CLI_EXIT_FAIL if any name failed, or
 * CLI_EXIT_TROUBLE if standard input could not be read.  A write error
 * stops the loop; the caller reports it when it closes standard output.
 */
int cli_for_each_name(const struct cli_args *args, cli_name_fn *fn, void *ctx);

#endif
