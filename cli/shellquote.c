/*
 * Quoting names for people.  The point of an audit is to show names that
 * look alike, so nothing invisible may be printed raw: a code point that
 * normalization strips (a Default_Ignorable, per the library) is escaped.
 */
#include <stdbool.h>
#include <string.h>

#include "tree/report.h"

/* Length of the UTF-8 character starting with byte b (s is valid). */
static size_t seqlen(unsigned char b)
{
	return b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
}

static uint32_t decode(const unsigned char *p, size_t n)
{
	static const unsigned char lead_mask[] = { 0, 0x7F, 0x1F, 0x0F, 0x07 };
	uint32_t c = p[0] & lead_mask[n];

	for (size_t i = 1; i < n; i++)
		c = c << 6 | (p[i] & 0x3F);
	return c;
}

static const cf_encoding *display_rule(void)
{
	static cf_encoding enc;
	static bool loaded;

	/* The newest Unicode knows the most ignorables. */
	if (!loaded)
		loaded = cf_encoding_init(&enc, cf_encoding_latest(), 0) == 0;
	return &enc;
}

static bool invisible(const unsigned char *p, size_t n, uint32_t c)
{
	char out[16];

	if (c < 0x20 || (c >= 0x7F && c < 0xA0))
		return true;
	return n > 1 && cf_normalize(display_rule(), (const char *)p, n, out, sizeof(out)) == 0;
}

static bool shell_safe(unsigned char b)
{
	return b >= 0x80 || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') ||
	       (b >= '0' && b <= '9') || strchr("_./+,:@%=-", b);
}

void cli_shell_quote(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	bool valid = cf_validate(display_rule(), s, len) == 0 && !memchr(s, 0, len);
	bool escapes = !valid, bare = len > 0;

	for (size_t i = 0; valid && i < len;) {
		size_t n = seqlen(p[i]);

		if (invisible(p + i, n, decode(p + i, n)))
			escapes = true;
		if (!shell_safe(p[i]))
			bare = false;
		i += n;
	}
	if (bare && !escapes) {
		fwrite(s, 1, len, f);
		return;
	}
	if (!escapes) {
		putc('\'', f);
		for (size_t i = 0; i < len; i++)
			if (p[i] == '\'')
				fputs("'\\''", f);
			else
				putc(p[i], f);
		putc('\'', f);
		return;
	}
	fputs("$'", f);
	for (size_t i = 0; i < len;) {
		size_t n = valid ? seqlen(p[i]) : 1;
		uint32_t c = valid ? decode(p + i, n) : p[i];

		if (p[i] == '\'' || p[i] == '\\')
			fprintf(f, "\\%c", p[i]);
		else if (!valid && p[i] >= 0x80)
			fprintf(f, "\\x%02x", p[i]);
		else if (c < 0x80 && invisible(p + i, n, c))
			fprintf(f, "\\x%02x", p[i]);
		else if (invisible(p + i, n, c))
			fprintf(f, c > 0xFFFF ? "\\U%08x" : "\\u%04x", (unsigned)c);
		else
			fwrite(p + i, 1, n, f);
		i += n;
	}
	putc('\'', f);
}
