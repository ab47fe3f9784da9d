/* The name stream: operands, and standard input wherever "-" appears. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "operands.h"

const char cli_names_doc[] =
	"An operand - stands for the names read from standard input, one per\n"
	"line (with -0, separated by NUL bytes); a last name without a separator\n"
	"counts.  Names are bytes: nothing is trimmed, not even a carriage\n"
	"return.  Each name yields exactly one result line, in input order, so\n"
	"the output can be pasted next to the input.  A name that cannot be\n"
	"processed yields the line \"error: <reason>\" in its place (a line\n"
	"longer than 1 MiB too) and the work goes on.  To process a name that\n"
	"starts with -, put it after --.";

/* A buffered reader of standard input, split at a delimiter. */
struct reader {
	char delim;
	FILE *flush;      /* flushed before blocking on input */
	char *buf;
	size_t cap;
	size_t start;     /* first byte of the name being read */
	size_t scan;      /* bytes before it hold no delimiter: never rescanned */
	size_t end;       /* end of the bytes read */
	bool eof;
	bool skipping;    /* inside a name longer than CLI_NAME_LIMIT */
};

/* Read more input after the unfinished name.  Returns 0 or -errno. */
static int fill(struct reader *r)
{
	ssize_t n;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->scan -= r->start;
		r->start = 0;
	}
	if (r->end == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64 * 1024;
		char *buf = realloc(r->buf, cap);

		if (!buf)
			return -ENOMEM;
		r->buf = buf;
		r->cap = cap;
	}
	/*
	 * Results so far go out before we may block, so that a program
	 * feeding names one at a time (a coprocess) sees each answer; in
	 * bulk this is one flush per read, not per name.
	 */
	fflush(r->flush);
	do
		n = read(STDIN_FILENO, r->buf + r->end, r->cap - r->end);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		r->eof = true;
	r->end += (size_t)n;
	return 0;
}

/*
 * The next name of standard input.  Returns 1, 0 at the end of input,
 * -ENAMETOOLONG for a name over the limit (skipped) or another -errno.
 */
static int next_line(struct reader *r, const char **name, size_t *len)
{
	for (;;) {
		char *d = r->scan < r->end ?
			memchr(r->buf + r->scan, r->delim, r->end - r->scan) : NULL;
		size_t stop = d ? (size_t)(d - r->buf) : r->end;
		int err;

		if (d || (r->eof && (r->start < r->end || r->skipping))) {
			bool too_long = r->skipping || stop - r->start > CLI_NAME_LIMIT;

			*name = r->buf + r->start;
			*len = stop - r->start;
			r->start = r->scan = d ? stop + 1 : stop;
			r->skipping = false;
			return too_long ? -ENAMETOOLONG : 1;
		}
		if (r->eof)
			return 0;
		r->scan = r->end;
		if (r->skipping || r->end - r->start > CLI_NAME_LIMIT) {
			/* Keep nothing of it: the reader's memory stays bounded. */
			r->skipping = true;
			r->start = r->scan = r->end;
		}
		err = fill(r);
		if (err < 0)
			return err;
	}
}

int cli_for_each_name(const struct cli_args *args, cli_name_fn *fn, void *ctx)
{
	struct cli_out out = { stdout, args->hex, args->nul ? '\0' : '\n' };
	struct reader r = { .delim = args->nul ? '\0' : '\n', .flush = stdout };
	int status = CLI_EXIT_OK;

	for (int i = 0; i < args->noperands && !ferror(stdout); i++) {
		const char *arg = args->operands[i];
		const char *name;
		size_t len;
		int got;

		if (strcmp(arg, "-") != 0) {
			if (fn(ctx, &out, arg, strlen(arg)))
				status = CLI_EXIT_FAIL;
			continue;
		}
		/* A second "-" reads on from where the first stopped, as cat does. */
		r.eof = false;
		while ((got = next_line(&r, &name, &len)) != 0 && !ferror(stdout)) {
			if (got == -ENAMETOOLONG) {
				cli_out_error(&out, CLI_NAME_TOO_LONG);
				status = CLI_EXIT_FAIL;
			} else if (got < 0) {
				cli_error("standard input: %s", strerror(-got));
				status = CLI_EXIT_TROUBLE;
				break;
			} else if (fn(ctx, &out, name, len)) {
				status = CLI_EXIT_FAIL;
			}
		}
		if (status == CLI_EXIT_TROUBLE)
			break;
	}
	free(r.buf);
	return status;
}
