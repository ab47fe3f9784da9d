/* Quoting names for ext4 audit's text and JSON output. */
#include "casefold.h"
#include "ext4_quote.h"

/*
 * Length of the valid UTF-8 sequence at s[0..len), or 0 if s[0] does not
 * start one.  The library's validator judges the sequence, so that the
 * reports and the file system agree on what is valid.
 */
static size_t sequence(const cf_encoding *utf8, const unsigned char *s, size_t len)
{
	size_t n = *s < 0x80 ? 1 : *s >= 0xC2 && *s <= 0xDF ? 2 :
		   *s >= 0xE0 && *s <= 0xEF ? 3 : *s >= 0xF0 && *s <= 0xF4 ? 4 : 0;

	if (n == 0 || n > len || cf_validate(utf8, (const char *)s, n) < 0)
		return 0;
	return n;
}

/* A character that normalization removes (a Default_Ignorable): invisible. */
static int invisible(const cf_encoding *utf8, const unsigned char *s, size_t n)
{
	char out[CF_FOLD_MAX];

	return n > 1 && cf_normalize(utf8, (const char *)s, n, out, sizeof(out)) == 0;
}

void cli_ext4_quote_text(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	cf_encoding utf8;

	cf_encoding_init(&utf8, "utf8", 0);
	putc('"', f);
	while (p < end) {
		size_t n = sequence(&utf8, p, (size_t)(end - p));

		if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p);
		} else if (n == 0 || *p < 0x20 || *p == 0x7f || invisible(&utf8, p, n)) {
			n = n ? n : 1;
			for (size_t i = 0; i < n; i++)
				fprintf(f, "\\x%02x", p[i]);
			p += n;
			continue;
		} else {
			fwrite(p, 1, n, f);
		}
		p += n ? n : 1;
	}
	putc('"', f);
}

void cli_ext4_quote_json(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	cf_encoding utf8;

	cf_encoding_init(&utf8, "utf8", 0);
	putc('"', f);
	while (p < end) {
		size_t n = sequence(&utf8, p, (size_t)(end - p));

		if (n == 0)
			fputs("\\ufffd", f);
		else if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fwrite(p, 1, n, f);
		p += n ? n : 1;
	}
	putc('"', f);
}

void cli_ext4_quote_hex(FILE *f, const char *s, size_t len)
{
	putc('"', f);
	for (size_t i = 0; i < len; i++)
		fprintf(f, "%02x", (unsigned char)s[i]);
	putc('"', f);
}
