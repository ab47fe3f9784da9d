/* Result lines.  putc_unlocked and fwrite keep millions of lines cheap. */
#include "output.h"

void cli_out_result(const struct cli_out *out, const char *s, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	char chunk[512];
	size_t n = 0;

	if (!out->hex) {
		fwrite(s, 1, len, out->f);
		putc_unlocked(out->end, out->f);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char b = (unsigned char)s[i];

		if (n == sizeof(chunk)) {
			fwrite(chunk, 1, n, out->f);
			n = 0;
		}
		chunk[n++] = digits[b >> 4];
		chunk[n++] = digits[b & 0xf];
	}
	fwrite(chunk, 1, n, out->f);
	putc_unlocked(out->end, out->f);
}

void cli_out_word(const struct cli_out *out, const char *word)
{
	fputs(word, out->f);
	putc_unlocked(out->end, out->f);
}

void cli_out_error(const struct cli_out *out, const char *reason)
{
	fputs("error: ", out->f);
	cli_out_word(out, reason);
}
