/* UTF-8 as the kernel's tables accept it. */
#ifndef CF_UTF8_H
#define CF_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length of the character that starts with byte c, judged by that byte
 * alone (the kernel's utf8clen: continuation bytes count as 1). */
static inline size_t cf_utf8_clen(unsigned char c)
{
	return 1 + (c >= 0xC0) + (c >= 0xE0) + (c >= 0xF0);
}

/*
 * Decode the well-formed character at s (at most len bytes) into *cp and
 * return its length, or 0 if the bytes there are not one: a continuation or
 * invalid lead byte, a truncated, overlong or surrogate sequence, or a value
 * beyond U+10FFFF.  This is exactly the set of sequences the kernel's trie
 * has leaves for.
 */
static inline size_t cf_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char c = s[0];
	uint32_t v;
	size_t n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c < 0xC2)
		return 0;
	if (c < 0xE0) {
		n = 2, v = c & 0x1F;
	} else if (c < 0xF0) {
		n = 3, v = c & 0x0F;
	} else if (c < 0xF5) {
		n = 4, v = c & 0x07;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3F);
	}
	if ((n == 3 && (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF))) ||
	    (n == 4 && (v < 0x10000 || v > 0x10FFFF)))
		return 0;
	*cp = v;
	return n;
}

#endif
