/*
 * What no case-insensitive operation can beat: copying and comparing bytes,
 * and ASCII-only case (shown only where it gives the right answer).
 */
#include <string.h>

#include "bench.h"

static ssize_t copy(const char *s, size_t len, char *out, size_t cap)
{
	if (len > cap)
		return -1;
	memcpy(out, s, len);
	return (ssize_t)len;
}

static char lower(char c)
{
	return (char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
}

static ssize_t tolower_ascii(const char *s, size_t len, char *out, size_t cap)
{
	if (len > cap)
		return -1;
	for (size_t i = 0; i < len; i++)
		out[i] = lower(s[i]);
	return (ssize_t)len;
}

static int bytecmp(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen != blen || memcmp(a, b, alen);
}

static int asciicmp(const char *a, size_t alen, const char *b, size_t blen)
{
	if (alen != blen)
		return 1;
	for (size_t i = 0; i < alen; i++)
		if (lower(a[i]) != lower(b[i]))
			return 1;
	return 0;
}

const struct impl bound_memcpy = {"bound: memcpy", ROLE_BOUND, .fold = copy};
const struct impl bound_tolower = {"bound: ASCII tolower loop", ROLE_BOUND, .fold = tolower_ascii,
				   .ref_encoding = "utf8-12.1.0"};
const struct impl bound_memcmp = {"bound: memcmp", ROLE_BOUND, .cmp = bytecmp};
const struct impl bound_asciicmp = {"bound: ASCII case-insensitive loop", ROLE_BOUND,
				    .cmp = asciicmp};
