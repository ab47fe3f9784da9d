/* Writing audit findings: one line each in text, one array in JSON. */
#include <string.h>

#include "ext4/report.h"
#include "quote.h"

/* Start of a finding: a separator in JSON, the directory in text. */
static void begin(struct cli_ext4_report *r, const struct cli_ext4_report_dir *d, const char *kind,
		  bool problem)
{
	if (problem)
		r->problems++;
	else
		r->notes++;
	if (r->json) {
		fprintf(r->f, "%s{\"kind\":\"%s\",\"severity\":\"%s\",\"dir\":",
			r->problems + r->notes > 1 ? ",\n" : "\n", kind,
			problem ? "problem" : "note");
		cli_quote_json(r->f, d->path, strlen(d->path));
		fprintf(r->f, ",\"dir_inode\":%u", d->ino);
	} else {
		cli_quote_shell(r->f, d->path, strlen(d->path));
		fprintf(r->f, ": %s%s: ", problem ? "" : "note: ", kind);
	}
}

static void name(struct cli_ext4_report *r, const struct cli_ext4_report_name *n)
{
	if (r->json) {
		fputs("{\"name\":", r->f);
		cli_quote_json(r->f, n->name, n->len);
		fputs(",\"hex\":", r->f);
		cli_quote_hex(r->f, n->name, n->len);
		fprintf(r->f, ",\"inode\":%u}", n->ino);
	} else {
		cli_quote_shell(r->f, n->name, n->len);
		fprintf(r->f, " (inode %u)", n->ino);
	}
}

void cli_ext4_report_begin(struct cli_ext4_report *r, const char *image, const char *encoding,
		      unsigned encoding_flags)
{
	if (!r->json)
		return;
	fputs("{\"image\":", r->f);
	cli_quote_json(r->f, image, strlen(image));
	fputs(",\"encoding\":", r->f);
	if (encoding)
		cli_quote_json(r->f, encoding, strlen(encoding));
	else
		fputs("null", r->f);
	fprintf(r->f, ",\"encoding_flags\":%u,\"findings\":[", encoding_flags);
}

void cli_ext4_report_invalid(struct cli_ext4_report *r, const struct cli_ext4_report_dir *d,
			const struct cli_ext4_report_name *n, bool strict)
{
	begin(r, d, "invalid-utf8", strict);
	if (r->json) {
		fputs(",\"entry\":", r->f);
		name(r, n);
		fputs("}", r->f);
		return;
	}
	name(r, n);
	fputs(strict ? ": strict file system, the kernel refuses to look it up\n" :
		       ": matched as opaque bytes, by its exact spelling only\n", r->f);
}

void cli_ext4_report_fold_equal(struct cli_ext4_report *r, const struct cli_ext4_report_dir *d,
			   const struct cli_ext4_report_name *names, size_t count)
{
	begin(r, d, "fold-equal", true);
	fputs(r->json ? ",\"entries\":[" : "", r->f);
	for (size_t i = 0; i < count; i++) {
		if (i)
			fputs(r->json ? "," : ", ", r->f);
		name(r, &names[i]);
	}
	fputs(r->json ? "]}" : "\n", r->f);
}

void cli_ext4_report_misplaced(struct cli_ext4_report *r, const struct cli_ext4_report_dir *d,
			  const struct cli_ext4_report_name *n, uint32_t lblk, uint32_t hash,
			  const struct cli_htree_leaf *leaf, bool other, bool keep_ignorables)
{
	r->misplaced++;
	begin(r, d, "misplaced", true);
	fputs(r->json ? ",\"entry\":" : "", r->f);
	name(r, n);
	fprintf(r->f, r->json ? ",\"block\":%u,\"hash\":\"%08x\"," : " in block %u, hash %08x",
		lblk, hash);
	if (leaf)
		fprintf(r->f, r->json ? "\"range\":[\"%08llx\",\"%08llx\"]"
				      : " outside the block's [%08llx, %08llx)",
			(unsigned long long)leaf->lo, (unsigned long long)leaf->hi);
	else
		fputs(r->json ? "\"range\":null" : ", a block the index does not lead to", r->f);
	if (r->json) {
		fprintf(r->f, ",\"fits_other_policy\":%s,\"other_policy\":\"%s\"}",
			other ? "true" : "false",
			keep_ignorables ? "ignorables-kept" : "ignorables-stripped");
		return;
	}
	if (other)
		fprintf(r->f, "; fits with ignorables %s%s\n",
			keep_ignorables ? "kept" : "stripped",
			keep_ignorables ? " (hashed by Linux 6.12-6.13)" : "");
	else
		fprintf(r->f, "; not with ignorables %s either\n",
			keep_ignorables ? "kept" : "stripped");
}

void cli_ext4_report_damage(struct cli_ext4_report *r, const struct cli_ext4_report_dir *d, const char *what)
{
	begin(r, d, "damage", true);
	if (r->json) {
		fputs(",\"what\":", r->f);
		cli_quote_json(r->f, what, strlen(what));
		fputs("}", r->f);
	} else {
		fprintf(r->f, "%s\n", what);
	}
}

void cli_ext4_report_end(struct cli_ext4_report *r, size_t dirs, size_t names, size_t encrypted,
		    bool no_compat_fallback)
{
	if (r->json) {
		fprintf(r->f, "%s],\"directories\":%zu,\"names\":%zu,\"encrypted_skipped\":%zu,"
			"\"problems\":%zu,\"notes\":%zu}\n", r->problems + r->notes ? "\n" : "",
			dirs, names, encrypted, r->problems, r->notes);
		return;
	}
	fprintf(r->f, "%zu casefolded directories, %zu names: %zu problems, %zu notes\n",
		dirs, names, r->problems, r->notes);
	if (encrypted)
		fprintf(r->f, "%zu encrypted casefolded directories not read\n", encrypted);
	if (r->misplaced)
		fputs(no_compat_fallback ?
		      "misplaced names cannot be looked up: the file system has no-compat-fallback\n" :
		      "misplaced names are found only by kernels that fall back to a linear search\n",
		      r->f);
}
