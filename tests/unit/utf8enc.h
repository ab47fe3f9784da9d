/* UTF-8 encoding of one code point, for building test names. */
#ifndef CF_TEST_UTF8ENC_H
#define CF_TEST_UTF8ENC_H

#include <stdint.h>

/* Write c (surrogates too: tests use them as malformed input) to p and
 * return the number of bytes. */
static inline int put_utf8(uint32_t c, char *p)
{
	if (c < 0x80)
		return p[0] = (char)c, 1;
	if (c < 0x800)
		return p[0] = (char)(0xC0 | c >> 6), p[1] = (char)(0x80 | (c & 0x3F)), 2;
	if (c < 0x10000)
		return p[0] = (char)(0xE0 | c >> 12), p[1] = (char)(0x80 | (c >> 6 & 0x3F)),
		       p[2] = (char)(0x80 | (c & 0x3F)), 3;
	return p[0] = (char)(0xF0 | c >> 18), p[1] = (char)(0x80 | (c >> 12 & 0x3F)),
	       p[2] = (char)(0x80 | (c >> 6 & 0x3F)), p[3] = (char)(0x80 | (c & 0x3F)), 4;
}

#endif
