/*
 * The three report formats.  JSON strings must be UTF-8 and names need
 * not be, so every name and directory also comes in hex: the string is
 * for reading (quote.h), the hex is exact.
 */
#include <stdbool.h>
#include <string.h>

#include "diag.h"
#include "quote.h"
#include "tree/report.h"

static const char *const kind_word[] = {
	[CLI_COLLISION] = "collision",
	[CLI_IGNORABLE] = "ignorable",
	[CLI_INVALID] = "invalid",
};

void cli_audit_begin(struct cli_audit_report *r)
{
	if (r->format != CLI_JSON)
		return;
	fputs("{\"casefold_audit\": 1, \"encoding\": ", r->f);
	cli_quote_json(r->f, cf_encoding_name(&r->rules->rule), strlen(cf_encoding_name(&r->rules->rule)));
	fprintf(r->f, ", \"ignorables\": \"%s\",\n\"findings\": [",
		r->rules->rule.flags & CF_KEEP_IGNORABLES ? "keep" : "strip");
}

/* ",\n" between JSON elements. */
static void json_next(struct cli_audit_report *r)
{
	fputs(r->items++ ? ",\n" : "\n", r->f);
}

static void json_dir(FILE *f, const char *dir)
{
	fputs("\"dir\": ", f);
	cli_quote_json(f, dir, strlen(dir));
	fputs(", \"dir_hex\": ", f);
	cli_quote_hex(f, dir, strlen(dir));
}

static void put_path(FILE *f, const char *dir, const char *name, size_t len)
{
	size_t dlen = strlen(dir);

	fwrite(dir, 1, dlen, f);
	if (dlen && dir[dlen - 1] != '/')
		putc('/', f);
	fwrite(name, 1, len, f);
	putc('\0', f);
}

/*
 * Whether two names of a finding look alike on a terminal: canonically
 * equivalent (NFC and NFD spellings, U+00E9 and e U+0301, or U+00C5 and
 * U+212B) though different bytes.  Then every name of the finding is shown
 * with its characters beyond ASCII escaped.
 */
static bool look_alike(const struct cli_rules *r, const struct cli_dirlist *l,
		       const struct cli_finding *fd)
{
	for (size_t i = 0; i < fd->n; i++)
		for (size_t j = 0; j < i; j++)
			if (cf_normalize_equal(&r->keep, cli_dirlist_name(l, fd->idx[i]),
					       l->e[fd->idx[i]].len, cli_dirlist_name(l, fd->idx[j]),
					       l->e[fd->idx[j]].len) == 1)
				return true;
	return false;
}

void cli_audit_finding(struct cli_audit_report *r, const char *dir, const struct cli_dirlist *l,
			const struct cli_finding *fd)
{
	static const char *const human[] = {
		[CLI_COLLISION] = "names that collide",
		[CLI_IGNORABLE] = "names that differ only by invisible characters",
		[CLI_INVALID] = "name invalid for",
	};
	FILE *f = r->f;
	void (*quote)(FILE *, const char *, size_t);

	r->count[fd->kind]++;
	if (r->progress)
		cli_progress_clear(r->progress);
	switch (r->format) {
	case CLI_HUMAN:
		cli_quote_shell(f, dir, strlen(dir));
		fprintf(f, ": %s", human[fd->kind]);
		if (fd->kind == CLI_INVALID)
			fprintf(f, " %s", cf_encoding_name(&r->rules->rule));
		putc(':', f);
		quote = look_alike(r->rules, l, fd) ? cli_quote_shell_ascii : cli_quote_shell;
		for (size_t i = 0; i < fd->n; i++) {
			putc(' ', f);
			quote(f, cli_dirlist_name(l, fd->idx[i]), l->e[fd->idx[i]].len);
		}
		putc('\n', f);
		break;
	case CLI_RECORDS:
		fprintf(f, "%s%c", kind_word[fd->kind], 0);
		for (size_t i = 0; i < fd->n; i++)
			put_path(f, dir, cli_dirlist_name(l, fd->idx[i]), l->e[fd->idx[i]].len);
		putc('\0', f);
		break;
	case CLI_JSON:
		json_next(r);
		fprintf(f, "{\"kind\": \"%s\", ", kind_word[fd->kind]);
		json_dir(f, dir);
		fputs(", \"names\": [", f);
		for (size_t i = 0; i < fd->n; i++) {
			fputs(i ? ", " : "", f);
			cli_quote_json(f, cli_dirlist_name(l, fd->idx[i]), l->e[fd->idx[i]].len);
		}
		fputs("], \"names_hex\": [", f);
		for (size_t i = 0; i < fd->n; i++) {
			fputs(i ? ", " : "", f);
			cli_quote_hex(f, cli_dirlist_name(l, fd->idx[i]), l->e[fd->idx[i]].len);
		}
		fputs("]}", f);
		break;
	}
}

void cli_audit_error(struct cli_audit_report *r, const char *path, int err)
{
	r->errors++;
	if (r->progress)
		cli_progress_clear(r->progress);
	cli_error("%s: %s", path, strerror(-err));
	if (r->format != CLI_JSON)
		return;
	json_next(r);
	fputs("{\"kind\": \"error\", ", r->f);
	json_dir(r->f, path);
	fputs(", \"error\": ", r->f);
	cli_quote_json(r->f, strerror(-err), strlen(strerror(-err)));
	putc('}', r->f);
}

void cli_audit_end(struct cli_audit_report *r, uint64_t directories, uint64_t entries)
{
	unsigned long long c = r->count[CLI_COLLISION], g = r->count[CLI_IGNORABLE],
			   v = r->count[CLI_INVALID], e = r->errors;

	if (r->progress)
		cli_progress_clear(r->progress);
	if (r->format == CLI_JSON)
		fprintf(r->f, "%s],\n\"summary\": {\"directories\": %llu, \"entries\": %llu, "
			"\"collisions\": %llu, \"ignorable\": %llu, \"invalid\": %llu, "
			"\"errors\": %llu}}\n", r->items ? "\n" : "",
			(unsigned long long)directories, (unsigned long long)entries, c, g, v, e);
	else if (r->format == CLI_HUMAN)
		fprintf(r->f, "%llu directories, %llu entries: %llu collision sets, "
			"%llu invisible-character sets, %llu invalid names, %llu errors\n",
			(unsigned long long)directories, (unsigned long long)entries, c, g, v, e);
}
