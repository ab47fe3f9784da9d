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

_Static_assert(CF_MAP_MAX <= CFI_STREAM_MIN, "a mapping must fit in one piece");

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

int cfi_stream_start(struct cfi_stream *st, const cf_encoding *enc, enum cf_form form,
		    const char *s, size_t len)
{
	st->slow = st->done = 0;
	return cfi_cursor_start(&st->cur, enc, form, s, len);
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
static ssize_t slow_fill(struct cfi_stream *st, unsigned char *buf, size_t cap)
{
	struct cfi_cursor *cur = &st->cur;
	size_t n = 0;

	while (n < cap) {
		int c = cfi_cursor_next(cur);
		if (c <= 0) {
			if (c < 0)
				return c;
			st->done = 1;
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

size_t cfi_ascii_prefix(const unsigned char *s, size_t len, unsigned char *out, int fold)
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

void cfi_stream_skip(struct cfi_stream *st, size_t n)
{
	st->cur.s += n;
	st->cur.len -= n;
}

/*
 * Two-byte characters (Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic...)
 * while they are starters that stay as they are or map to starters: the
 * common case of non-ASCII names, without the general path's branches.
 * Returns how many bytes of s were used; out has room for 2 * (len / 2).
 */
static size_t two_byte_run(const unsigned char *s, size_t len, unsigned char *out, size_t room,
			   const struct cfi_cursor *cur, size_t *written)
{
	const uint8_t flat = cur->form == CF_NFDICF ? CF_F_CF_FLAT : CF_F_NFD_FLAT;
	const uint8_t has_map = cur->form == CF_NFDICF ? CF_F_CF : CF_F_NFD;
	const uint8_t skip = cur->keep ? 0 : CF_F_IGNORABLE;
	size_t i = 0, n = 0;

	while (i + 2 <= len && n + 4 <= room && s[i] >= 0xC2 && s[i] < 0xE0 &&
	       (s[i + 1] & 0xC0) == 0x80) {
		unsigned v = cf_direct2[((s[i] & 0x1Fu) << 6 | (s[i + 1] & 0x3Fu)) - 0x80];
		if (v < 0x8000) {
			const uint8_t *cls = cf_classes[v];
			if (cls[1] || cls[0] > cur->age || (cls[2] & skip))
				break;
			out[n] = s[i];
			out[n + 1] = s[i + 1];
			n += 2;
		} else {
			const unsigned char *e = cf_pool + (v & 0x7FFF), *map = e + 1;
			const uint8_t *cls = cf_classes[e[0]];
			if (cls[0] > cur->age || (cls[2] & skip) || !(cls[2] & has_map) || !(cls[2] & flat))
				break;
			if (cur->form == CF_NFDICF && !(cls[2] & CF_F_CF_IS_NFD))
				while (*map++)
					;
			if (n + CF_MAP_MAX > room)
				break;
			while (*map)
				out[n++] = *map++;
		}
		i += 2;
	}
	*written = n;
	return i;
}

/* What the character at s does to a run of combining marks before it. */
enum next_kind {
	ENDS_RUN,  /* a starter, or the end of the name: the run is complete */
	EXTENDS,   /* an unmapped non-starter, of class *ccc and *k bytes */
	NEEDS_CURSOR, /* anything else: let the kernel's algorithm decide */
};

static enum next_kind classify(const struct cfi_cursor *cur, const unsigned char *s, size_t len,
			       int *ccc, size_t *k)
{
	uint32_t c;

	if (!len || *s < 0x80)
		return ENDS_RUN; /* the end, a NUL or an ASCII starter */
	if (!(*k = cf_utf8_decode(s, len, &c)))
		return NEEDS_CURSOR; /* a stray continuation byte, or invalid */
	struct cf_char ch = cf_char_lookup(c);
	if (ch.age > cur->age || (ch.flags & (CF_F_HANGUL | (cur->keep ? 0 : CF_F_IGNORABLE))))
		return ENDS_RUN;
	if (cur->form == CF_NFDICF ? (ch.flags & CF_F_CF) : (ch.flags & CF_F_NFD))
		return (ch.flags2 & (cur->form == CF_NFDICF ? CF_F2_CF_LEAD : CF_F2_NFD_LEAD))
			       ? ENDS_RUN : NEEDS_CURSOR;
	*ccc = ch.ccc;
	return ch.ccc ? EXTENDS : ENDS_RUN;
}

/* Class of the last character of a NUL-terminated mapping. */
static int last_class(const unsigned char *map)
{
	const unsigned char *last = map;
	uint32_t c = 0;

	for (const unsigned char *p = map; *p; p++)
		if ((*p & 0xC0) != 0x80)
			last = p;
	cf_utf8_decode(last, 4, &c);
	return cf_char_lookup(c).ccc;
}

/*
 * A run of combining marks that is already in canonical order: the
 * character at s (k bytes) becomes piece (its mapping, or itself when
 * piece == s), whose last class is last (or -1: look it up when needed);
 * unmapped marks in non-decreasing class order may follow.  If a starter
 * ends the run, the kernel's reordering changes nothing: write it all to out
 * (room bytes) and return the bytes of the name used; else return 0.
 */
static size_t ordered_run(const struct cfi_cursor *cur, const unsigned char *s, size_t len,
			  size_t k, const unsigned char *piece, size_t plen, int last,
			  unsigned char *out, size_t room)
{
	size_t t = k;

	for (;;) {
		int ccc;
		size_t kk;
		enum next_kind next = classify(cur, s + t, len - t, &ccc, &kk);
		if (next == NEEDS_CURSOR)
			return 0;
		if (next == ENDS_RUN)
			break;
		if (last < 0)
			last = last_class(piece);
		if (ccc < last || plen + (t - k) + kk > room)
			return 0;
		last = ccc;
		t += kk;
	}
	memcpy(out, piece, plen);
	memcpy(out + plen, s + k, t - k);
	return t;
}

ssize_t cfi_stream_fill(struct cfi_stream *st, unsigned char *buf, size_t cap)
{
	struct cfi_cursor *cur = &st->cur;
	const int fold = cur->form == CF_NFDICF, keep = cur->keep, age = cur->age;
	const uint8_t has_map = fold ? CF_F_CF : CF_F_NFD, flat = fold ? CF_F_CF_FLAT : CF_F_NFD_FLAT;
	const uint8_t tail = fold ? CF_F2_CF_TAIL : CF_F2_NFD_TAIL;
	/* Local copies: stores into buf could otherwise alias the cursor. */
	const unsigned char *s = cur->s;
	size_t len = cur->len, n = 0;

	while (n + CFI_STREAM_MIN <= cap) {
		if (st->slow) {
			cur->s = s, cur->len = len;
			ssize_t k = slow_fill(st, buf + n, cap - n);
			if (k <= 0)
				return k < 0 ? k : (ssize_t)n;
			n += (size_t)k;
			s = cur->s, len = cur->len;
			continue;
		}
		if (!len || !*s) {
			st->done = 1;
			break;
		}
		if (*s < 0x80) {
			size_t k = ascii_run(s, len, buf + n, cap - n, fold);
			n += k;
			s += k;
			len -= k;
			continue;
		}
		if (cur->kind == CF_KIND_ASCII)
			return -EINVAL;
		size_t w, used2 = two_byte_run(s, len, buf + n, cap - n, cur, &w);
		if (used2) {
			n += w;
			s += used2;
			len -= used2;
			continue;
		}
		if ((*s & 0xC0) == 0x80) {
			/* A stray continuation byte passes through. */
			buf[n++] = *s++;
			len--;
			continue;
		}

		uint32_t c;
		size_t k = cf_utf8_decode(s, len, &c), used = 0;
		if (!k)
			return -EINVAL;
		struct cf_char ch = cf_char_lookup(c);
		const unsigned char *map = fold ? ch.cf : ch.nfd;
		if (ch.age > age) {
			/* Too new for this version: unchanged. */
			memcpy(buf + n, s, k);
			n += k;
			used = k;
		} else if ((ch.flags & CF_F_IGNORABLE) && !keep) {
			used = k;
		} else if (ch.flags & CF_F_HANGUL) {
			n = (size_t)(cf_hangul_decompose(c, buf + n) - buf);
			used = k;
		} else if ((ch.flags & has_map) && (ch.flags & flat)) {
			while (*map)
				buf[n++] = *map++;
			used = k;
		} else if (ch.flags & has_map) {
			size_t plen = strlen((const char *)map);
			if (ch.flags2 & tail)
				used = ordered_run(cur, s, len, k, map, plen, -1, buf + n, cap - n);
			if (used)
				n += plen + (used - k);
		} else if (ch.ccc == 0) {
			memcpy(buf + n, s, k);
			n += k;
			used = k;
		} else {
			used = ordered_run(cur, s, len, k, s, k, ch.ccc, buf + n, cap - n);
			if (used)
				n += used;
		}
		if (!used) {
			/* Reordering may be needed: the kernel's algorithm. */
			st->slow = 1;
			continue;
		}
		s += used;
		len -= used;
	}
	cur->s = s;
	cur->len = len;
	return (ssize_t)n;
}
