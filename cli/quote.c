/* The one quoting rule (see quote.h): a scanner of pieces, three writers. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "casefold.h"
#include "quote.h"

enum kind { PLAIN, INVALID, CONTROL, INVISIBLE };

struct piece {
	enum kind kind;
	size_t len;  /* bytes of the name it covers */
	uint32_t c;  /* the code point, or the byte when invalid */
};

/* The newest Unicode: it judges validity (which no version changes) and
 * knows the most invisible characters. */
static const cf_encoding *newest(void)
{
	static cf_encoding enc;
	static bool loaded;

	if (!loaded)
		loaded = cf_encoding_load(&enc, cf_encoding_latest(), 0) == 0;
	return &enc;
}

/* Length of the valid UTF-8 sequence at s[0..len), or 0 if there is none. */
static size_t sequence(const unsigned char *s, size_t len)
{
	size_t n = *s < 0x80 ? 1 : *s >= 0xC2 && *s <= 0xDF ? 2 :
		   *s >= 0xE0 && *s <= 0xEF ? 3 : *s >= 0xF0 && *s <= 0xF4 ? 4 : 0;

	if (n == 0 || n > len || cf_validate(newest(), (const char *)s, n) < 0)
		return 0;
	return n;
}

static uint32_t decode(const unsigned char *s, size_t n)
{
	static const unsigned char lead_mask[] = { 0, 0x7F, 0x1F, 0x0F, 0x07 };
	uint32_t c = s[0] & lead_mask[n];

	for (size_t i = 1; i < n; i++)
		c = c << 6 | (s[i] & 0x3F);
	return c;
}

/* The piece at s[0..len), len > 0.  NUL is judged here: the library reads
 * it as the end of the name. */
static struct piece next_piece(const unsigned char *s, size_t len)
{
	char out[16]; /* only an empty result matters: longer ones may not fit */
	size_t n = *s ? sequence(s, len) : 1;
	struct piece p = { .kind = PLAIN, .len = n ? n : 1 };

	if (n == 0) {
		p.kind = INVALID;
		p.c = *s;
		return p;
	}
	p.c = decode(s, n);
	if (p.c < 0x20 || (p.c >= 0x7F && p.c < 0xA0))
		p.kind = CONTROL;
	else if (n > 1 && cf_normalize(newest(), (const char *)s, n, out, sizeof(out)) == 0)
		p.kind = INVISIBLE;
	return p;
}

static bool shell_safe(unsigned char b)
{
	return b >= 0x80 || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') ||
	       (b >= '0' && b <= '9') || strchr("_./+,:@%=-", b);
}

/* How a name must be quoted for a shell: 0 bare, '\'' or '$'; ascii: any
 * character beyond ASCII needs '$'. */
static char shell_style(const unsigned char *s, size_t len, bool ascii)
{
	char style = len ? 0 : '\'';

	for (size_t i = 0; i < len;) {
		struct piece p = next_piece(s + i, len - i);

		if (p.kind != PLAIN || (ascii && p.c >= 0x80))
			return '$';
		if (!shell_safe(s[i]))
			style = '\'';
		i += p.len;
	}
	return style;
}

static void shell_escape(FILE *f, const unsigned char *s, struct piece p, bool ascii)
{
	if (p.kind == INVALID || (p.kind == CONTROL && p.c < 0x80))
		fprintf(f, "\\x%02x", s[0]);
	else if (p.kind != PLAIN || (ascii && p.c >= 0x80))
		fprintf(f, p.c > 0xFFFF ? "\\U%08x" : "\\u%04x", (unsigned)p.c);
	else if (s[0] == '\'' || s[0] == '\\')
		fprintf(f, "\\%c", s[0]);
	else
		fwrite(s, 1, p.len, f);
}

static void quote_shell(FILE *f, const char *s, size_t len, bool ascii)
{
	const unsigned char *p = (const unsigned char *)s;
	char style = shell_style(p, len, ascii);

	if (style == 0) {
		fwrite(s, 1, len, f);
	} else if (style == '\'') {
		putc('\'', f);
		for (size_t i = 0; i < len; i++)
			if (p[i] == '\'')
				fputs("'\\''", f);
			else
				putc(p[i], f);
		putc('\'', f);
	} else {
		fputs("$'", f);
		for (size_t i = 0; i < len;) {
			struct piece pc = next_piece(p + i, len - i);

			shell_escape(f, p + i, pc, ascii);
			i += pc.len;
		}
		putc('\'', f);
	}
}

void cli_quote_shell(FILE *f, const char *s, size_t len)
{
	quote_shell(f, s, len, false);
}

void cli_quote_shell_ascii(FILE *f, const char *s, size_t len)
{
	quote_shell(f, s, len, true);
}

/* \uXXXX, as a surrogate pair above U+FFFF (JSON has no longer escape). */
static void json_escape(FILE *f, uint32_t c)
{
	if (c > 0xFFFF)
		fprintf(f, "\\u%04x\\u%04x", (unsigned)(0xD800 + ((c - 0x10000) >> 10)),
			(unsigned)(0xDC00 + ((c - 0x10000) & 0x3FF)));
	else
		fprintf(f, "\\u%04x", (unsigned)c);
}

void cli_quote_json(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	putc('"', f);
	for (size_t i = 0; i < len;) {
		struct piece pc = next_piece(p + i, len - i);

		if (pc.kind == INVALID)
			fputs("\\ufffd", f);
		else if (pc.kind != PLAIN)
			json_escape(f, pc.c);
		else if (p[i] == '"' || p[i] == '\\')
			fprintf(f, "\\%c", p[i]);
		else
			fwrite(p + i, 1, pc.len, f);
		i += pc.len;
	}
	putc('"', f);
}

void cli_quote_hex(FILE *f, const char *s, size_t len)
{
	putc('"', f);
	for (size_t i = 0; i < len; i++)
		fprintf(f, "%02x", (unsigned char)s[i]);
	putc('"', f);
}
