/*
 * The fast path of every whole-name operation.
 *
 * Outside a run of combining marks the kernel's cursor emits each character
 * as soon as it reads it: a starter goes out at once, a mapping made only of
 * starters goes out whole, an ignorable vanishes, a character too new for
 * the version goes out unchanged, and a stray continuation byte goes out as
 * it is.  Those cases — nearly every character of real names — are handled
 * here a piece at a time, ASCII eight bytes at a time.  Anything that may
 * need canonical reordering (a non-starter, or a mapping containing one) is
 * handed to the cursor (cursor.c), which follows the kernel step for step
 * until the run is over and it is back in the same outside state; then the
 * fast path resumes where the cursor stopped.  The output is therefore the
 * kernel's, byte for byte (tests/unit/test_kernel_oracle.c).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "encoding.h"
#include "cursor.h"
#include "hangul.h"
#include "stream.h"
#include "tables.h"
#include "utf8.h"

_Static_assert(CF_MAP_MAX <= CF_STREAM_MIN, "a mapping must fit in one piece");

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

int cf_stream_start(struct cf_stream *st, const cf_encoding *enc, enum cf_form form,
		    const char *s, size_t len)
{
	st->slow = 0;
	return cf_cursor_start(&st->cur, enc, form, s, len);
}

/* Eight ASCII bytes, none NUL, lower-cased if fold: 1 if done. */
static int ascii8(const unsigned char *s, unsigned char *out, int fold)
{
	uint64_t x;

	memcpy(&x, s, 8);
	if ((x & HIGHS) || ((x - ONES) & ~x & HIGHS))
		return 0;
	if (fold) {
		/* The high bit of each byte becomes "is A..Z"; 0x80 >> 2 = 0x20. */
		uint64_t upper = (x + ONES * (0x80 - 'A')) & ~(x + ONES * (0x80 - 'Z' - 1)) & HIGHS;
		x |= upper >> 2;
	}
	memcpy(out, &x, 8);
	return 1;
}

/* One piece from the cursor, until it is back outside a run. */
static ssize_t slow_fill(struct cf_stream *st, unsigned char *buf, size_t cap)
{
	cf_cursor *cur = &st->cur;
	size_t n = 0;

	while (n < cap) {
		int c = cf_cursor_next(cur);
		if (c <= 0) {
			if (c < 0)
				return c;
			break;
		}
		buf[n++] = (unsigned char)c;
		if (cur->ccc == 0 && !cur->p) {
			st->slow = 0;
			break;
		}
	}
	return (ssize_t)n;
}

/* ASCII from s while it lasts and fits: returns how many bytes were used. */
static size_t ascii_run(const unsigned char *s, size_t len, unsigned char *out, size_t room,
			int fold)
{
	size_t i = 0;

	while (i + 8 <= len && i + 8 <= room && ascii8(s + i, out + i, fold))
		i += 8;
	for (; i < len && i < room && s[i] && s[i] < 0x80; i++)
		out[i] = (fold && s[i] >= 'A' && s[i] <= 'Z') ? (unsigned char)(s[i] + 32) : s[i];
	return i;
}

size_t cf_ascii_prefix(const unsigned char *s, size_t len, unsigned char *out, int fold)
{
	size_t i = 0;

	while (i + 8 <= len && ascii8(s + i, out + i, fold))
		i += 8;
	/* The last few bytes as one overlapping block, when it is all ASCII. */
	if (i < len && len >= 8 && i + 8 > len && ascii8(s + len - 8, out + len - 8, fold))
		return len;
	for (; i < len && s[i] && s[i] < 0x80; i++)
		out[i] = (fold && s[i] >= 'A' && s[i] <= 'Z') ? (unsigned char)(s[i] + 32) : s[i];
	return i;
}

void cf_stream_skip(struct cf_stream *st, size_t n)
{
	st->cur.s += n;
	st->cur.len -= n;
}

ssize_t cf_stream_fill(struct cf_stream *st, unsigned char *buf, size_t cap)
{
	cf_cursor *cur = &st->cur;
	const int fold = cur->form == CF_NFDICF, keep = cur->keep, age = cur->age;
	/* Local copies: stores into buf could otherwise alias the cursor. */
	const unsigned char *s = cur->s;
	size_t len = cur->len, n = 0;

	while (n + CF_STREAM_MIN <= cap) {
		if (st->slow) {
			cur->s = s, cur->len = len;
			ssize_t k = slow_fill(st, buf + n, cap - n);
			if (k <= 0)
				return k < 0 ? k : (ssize_t)n;
			n += (size_t)k;
			s = cur->s, len = cur->len;
			continue;
		}
		if (!len || !*s)
			break;
		if (*s < 0x80) {
			size_t k = ascii_run(s, len, buf + n, cap - n, fold);
			n += k;
			s += k;
			len -= k;
			continue;
		}
		if (cur->kind == CF_KIND_ASCII)
			return -EINVAL;
		if ((*s & 0xC0) == 0x80) {
			/* A stray continuation byte passes through. */
			buf[n++] = *s++;
			len--;
			continue;
		}

		uint32_t c;
		size_t k = cf_utf8_decode(s, len, &c);
		if (!k)
			return -EINVAL;
		struct cf_char ch = cf_char_lookup(c);
		const unsigned char *map = NULL;
		if (ch.age > age) {
			/* Too new for this version: unchanged. */
		} else if ((ch.flags & CF_F_IGNORABLE) && !keep) {
			s += k;
			len -= k;
			continue;
		} else if (ch.flags & CF_F_HANGUL) {
			n = (size_t)(cf_hangul_decompose(c, buf + n) - buf);
			s += k;
			len -= k;
			continue;
		} else if (fold ? (ch.flags & CF_F_CF) : (ch.flags & CF_F_NFD)) {
			if (!(ch.flags & (fold ? CF_F_CF_FLAT : CF_F_NFD_FLAT))) {
				st->slow = 1;
				continue;
			}
			map = fold ? ch.cf : ch.nfd;
		} else if (ch.ccc) {
			st->slow = 1;
			continue;
		}
		if (map) {
			while (*map)
				buf[n++] = *map++;
		} else {
			memcpy(buf + n, s, k);
			n += k;
		}
		s += k;
		len -= k;
	}
	cur->s = s;
	cur->len = len;
	return (ssize_t)n;
}
