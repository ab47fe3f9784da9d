/* Whole-name operations: validate, normalize, fold, compare, hash, match.
 * Each one streams through stream.c; none allocates. */
#include <errno.h>
#include <string.h>

#include "casefold.h"
#include "cursor.h"
#include "encoding.h"
#include "hash.h"
#include "stream.h"
#include "utf8.h"

/* The kernel's validation: every character up to the first NUL must be
 * well-formed; a stray continuation byte is not a character. */
int cf_validate(const cf_encoding *enc, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	while (len && *p) {
		uint32_t c;
		size_t n;

		if (enc->kind == CF_KIND_ASCII)
			n = *p < 0x80;
		else
			n = cf_utf8_decode(p, len, &c);
		if (!n)
			return -EINVAL;
		p += n;
		len -= n;
	}
	return 0;
}

/* Stream the result into dst.  Pieces are written straight into dst while
 * a whole piece fits; the tail goes through a small buffer.  When dst is
 * full, keep reading so that an invalid name is reported as such rather than
 * as too long. */
static ssize_t transform(const cf_encoding *enc, enum cf_form form, const char *s,
			 size_t len, char *dst, size_t dlen)
{
	unsigned char tail[CFI_STREAM_MIN];
	struct cfi_stream st;
	size_t n = 0;
	ssize_t k;

	if (!enc || (!s && len) || (!dst && dlen))
		return -EINVAL;
	if (dlen >= len && len) {
		n = cfi_ascii_prefix((const unsigned char *)s, len, (unsigned char *)dst,
				    form == CF_NFDICF);
		if (n == len || !s[n])
			return (ssize_t)n;
	}
	if ((k = cfi_stream_start(&st, enc, form, s ? s : "", len)))
		return k;
	cfi_stream_skip(&st, n);
	while (dlen - n >= CFI_STREAM_MIN) {
		if ((k = cfi_stream_fill(&st, (unsigned char *)dst + n, dlen - n)) < 0)
			return k;
		n += (size_t)k;
		if (st.done)
			return (ssize_t)n;
	}
	while ((k = cfi_stream_fill(&st, tail, sizeof(tail))) > 0) {
		if ((size_t)k > dlen - n) {
			while ((k = cfi_stream_fill(&st, tail, sizeof(tail))) > 0)
				;
			return k < 0 ? k : -ENAMETOOLONG;
		}
		memcpy(dst + n, tail, (size_t)k);
		n += (size_t)k;
	}
	return k < 0 ? k : (ssize_t)n;
}

ssize_t cf_normalize(const cf_encoding *enc, const char *s, size_t len, char *dst, size_t dlen)
{
	return transform(enc, CF_NFDI, s, len, dst, dlen);
}

ssize_t cf_casefold(const cf_encoding *enc, const char *s, size_t len, char *dst, size_t dlen)
{
	return transform(enc, CF_NFDICF, s, len, dst, dlen);
}

/* Would a cursor read the whole name without error?  The same walk as the
 * cursor's, without producing output: characters must be well-formed, a
 * stray continuation byte passes, the first byte may not be one.  ASCII is
 * checked eight bytes at a time. */
static int cursor_accepts(const cf_encoding *enc, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	if (len && (p[0] & 0xC0) == 0x80)
		return 0;
	while (len) {
		uint64_t x;
		uint32_t c;
		size_t n;

		for (; len >= 8; p += 8, len -= 8) {
			memcpy(&x, p, 8);
			if (x & 0x8080808080808080ull)
				break;
			if ((x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull)
				return 1; /* a NUL ends the name */
		}
		if (!len || !*p)
			return 1;
		if (*p < 0x80)
			n = 1;
		else if (enc->kind == CF_KIND_ASCII)
			return 0;
		else if ((*p & 0xC0) == 0x80)
			n = 1;
		else if (!(n = cf_utf8_decode(p, len, &c)))
			return 0;
		p += n;
		len -= n;
	}
	return 1;
}

/* A stream read through a buffer, for comparisons. */
struct reader {
	struct cfi_stream st;
	unsigned char buf[64];
	size_t pos, end;
	size_t want; /* how much to fill: little at first, to stop early */
};

/* Make bytes available; returns how many, 0 at the end, or -EINVAL. */
static ssize_t refill(struct reader *r)
{
	if (r->pos == r->end) {
		ssize_t k = cfi_stream_fill(&r->st, r->buf, r->want);
		if (k <= 0)
			return k;
		r->want = sizeof(r->buf);
		r->pos = 0;
		r->end = (size_t)k;
	}
	return (ssize_t)(r->end - r->pos);
}

/* Compare two streams a buffer at a time: 1 equal, 0 different, -EINVAL. */
static int same(struct reader *a, struct reader *b)
{
	for (;;) {
		ssize_t ka = refill(a), kb = refill(b);
		if (ka < 0 || kb < 0)
			return -EINVAL;
		if (!ka || !kb)
			return ka == kb;
		size_t k = (size_t)(ka < kb ? ka : kb);
		if (memcmp(a->buf + a->pos, b->buf + b->pos, k))
			return 0;
		a->pos += k;
		b->pos += k;
	}
}

static int equal_form(const cf_encoding *enc, enum cf_form form, const char *a, size_t alen,
		      const char *b, size_t blen)
{
	struct reader ra, rb;
	size_t i = 0;

	/* Exact bytes first: equal whenever the cursor would accept them. */
	if (alen == blen && (a == b || !memcmp(a, b, alen)))
		return cursor_accepts(enc, a, alen) ? 1 : -EINVAL;
	/* Then the common ASCII prefix, whose output is byte for byte. */
	while (i < alen && i < blen) {
		size_t m = alen - i < blen - i ? alen - i : blen - i;
		if (m > sizeof(ra.buf))
			m = sizeof(ra.buf);
		size_t na = cfi_ascii_prefix((const unsigned char *)a + i, m, ra.buf, form == CF_NFDICF);
		size_t nb = cfi_ascii_prefix((const unsigned char *)b + i, m, rb.buf, form == CF_NFDICF);
		size_t k = na < nb ? na : nb;
		if (memcmp(ra.buf, rb.buf, k))
			return 0;
		i += k;
		if (na != m || nb != m)
			break;
	}
	if (cfi_stream_start(&ra.st, enc, form, a, alen) || cfi_stream_start(&rb.st, enc, form, b, blen))
		return -EINVAL;
	cfi_stream_skip(&ra.st, i);
	cfi_stream_skip(&rb.st, i);
	ra.pos = ra.end = rb.pos = rb.end = 0;
	ra.want = rb.want = CFI_STREAM_MIN;
	return same(&ra, &rb);
}

int cf_normalize_equal(const cf_encoding *enc, const char *a, size_t alen, const char *b,
		       size_t blen)
{
	return equal_form(enc, CF_NFDI, a, alen, b, blen);
}

int cf_casefold_equal(const cf_encoding *enc, const char *a, size_t alen, const char *b,
		      size_t blen)
{
	return equal_form(enc, CF_NFDICF, a, alen, b, blen);
}

int cf_casefold_equal_folded(const cf_encoding *enc, const char *folded, size_t flen,
			     const char *b, size_t blen)
{
	unsigned char buf[64];
	struct cfi_stream st;
	ssize_t k;

	if (cfi_stream_start(&st, enc, CF_NFDICF, b, blen))
		return -EINVAL;
	while ((k = cfi_stream_fill(&st, buf, sizeof(buf))) > 0) {
		if ((size_t)k > flen || memcmp(folded, buf, (size_t)k))
			return 0;
		folded += k;
		flen -= (size_t)k;
	}
	if (k < 0)
		return -EINVAL;
	return flen == 0;
}

/* The key of the unkeyed hashes. */
static const uint64_t no_key[2];

int cf_casefold_hash(const cf_encoding *enc, const char *s, size_t len, uint64_t *hash)
{
	return cf_casefold_hash_keyed(enc, no_key, s, len, hash);
}

int cf_casefold_hash_keyed(const cf_encoding *enc, const uint64_t key[2], const char *s,
			   size_t len, uint64_t *hash)
{
	unsigned char buf[64];
	struct cf_hasher hs;
	struct cfi_stream st;
	ssize_t k;

	size_t i = 0;

	cf_hash_init(&hs, key);
	/* ASCII a buffer at a time while it lasts. */
	while (i < len) {
		size_t m = len - i < sizeof(buf) ? len - i : sizeof(buf);
		size_t n = cfi_ascii_prefix((const unsigned char *)s + i, m, buf, 1);
		cf_hash_bytes(&hs, buf, n);
		i += n;
		if (n != m)
			break;
	}
	if (i == len || !s[i]) {
		*hash = cf_hash_final(&hs);
		return 0;
	}
	if (cfi_stream_start(&st, enc, CF_NFDICF, s, len))
		return -EINVAL;
	cfi_stream_skip(&st, i);
	do {
		if ((k = cfi_stream_fill(&st, buf, sizeof(buf))) < 0)
			return -EINVAL;
		cf_hash_bytes(&hs, buf, (size_t)k);
	} while (!st.done);
	*hash = cf_hash_final(&hs);
	return 0;
}

/* With CF_STRICT a name the kernel's lookup refuses is an error: one it
 * cannot fold (its d_hash fails).  A stray continuation byte folds, so such
 * a name is looked up and matched like any other; only creating it fails
 * (cf_validate, the caller's check). */
static int strict_reject(const cf_encoding *enc, const char *s, size_t len)
{
	return (enc->flags & CF_STRICT) && !cursor_accepts(enc, s, len);
}

int cf_name_match(const cf_encoding *enc, const char *a, size_t alen, const char *b, size_t blen)
{
	if (strict_reject(enc, a, alen) || strict_reject(enc, b, blen))
		return -EINVAL;
	if (alen == blen && !memcmp(a, b, alen))
		return 1;
	/* A name that cannot be folded is opaque bytes, already found
	 * different. */
	return cf_casefold_equal(enc, a, alen, b, blen) == 1;
}

int cf_name_hash(const cf_encoding *enc, const char *s, size_t len, uint64_t *hash)
{
	return cf_name_hash_keyed(enc, no_key, s, len, hash);
}

int cf_name_hash_keyed(const cf_encoding *enc, const uint64_t key[2], const char *s, size_t len,
		       uint64_t *hash)
{
	struct cf_hasher hs;

	if (strict_reject(enc, s, len))
		return -EINVAL;
	if (cf_casefold_hash_keyed(enc, key, s, len, hash) == 0)
		return 0;
	cf_hash_init(&hs, key);
	cf_hash_bytes(&hs, (const unsigned char *)s, len);
	*hash = cf_hash_final(&hs);
	return 0;
}
