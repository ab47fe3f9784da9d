/* Whole-name operations: validate, normalize, fold, compare, hash, match.
 * Each one streams through the cursor; none allocates. */
#include <errno.h>
#include <string.h>

#include "casefold.h"
#include "cursor.h"
#include "encoding.h"
#include "hash.h"
#include "utf8.h"

int cf_cursor_init(cf_cursor *cur, const cf_encoding *enc, enum cf_form form,
		   const char *s, size_t len)
{
	if (!cur || !enc || (!s && len) || (form != CF_NFDI && form != CF_NFDICF))
		return -EINVAL;
	return cf_cursor_start(cur, enc, form, s ? s : "", len);
}

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

/* Drain a cursor into dst.  When dst is full, keep reading so that an
 * invalid name is reported as such rather than as too long. */
static ssize_t drain(cf_cursor *cur, char *dst, size_t dlen)
{
	size_t n = 0;
	int c;

	while ((c = cf_cursor_next(cur)) > 0) {
		if (n == dlen) {
			while ((c = cf_cursor_next(cur)) > 0)
				;
			return c < 0 ? c : -ENAMETOOLONG;
		}
		dst[n++] = (char)c;
	}
	return c < 0 ? c : (ssize_t)n;
}

static ssize_t transform(const cf_encoding *enc, enum cf_form form, const char *s,
			 size_t len, char *dst, size_t dlen)
{
	cf_cursor cur;
	int err = cf_cursor_init(&cur, enc, form, s, len);

	return err ? err : drain(&cur, dst, dlen);
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
 * stray continuation byte passes, the first byte may not be one. */
static int cursor_accepts(const cf_encoding *enc, const char *s, size_t len)
{
	cf_cursor cur;

	if (cf_cursor_start(&cur, enc, CF_NFDI, s, len))
		return 0;
	if (enc->kind == CF_KIND_ASCII)
		return cf_validate(enc, s, len) == 0;
	for (const unsigned char *p = (const unsigned char *)s; len && *p;) {
		uint32_t c;
		size_t n = (*p & 0xC0) == 0x80 ? 1 : cf_utf8_decode(p, len, &c);

		if (!n)
			return 0;
		p += n;
		len -= n;
	}
	return 1;
}

/* Compare two cursors byte by byte: 0 equal, 1 different, -EINVAL. */
static int compare(cf_cursor *a, cf_cursor *b)
{
	int ca, cb;

	do {
		ca = cf_cursor_next(a);
		cb = cf_cursor_next(b);
		if (ca < 0 || cb < 0)
			return -EINVAL;
		if (ca != cb)
			return 1;
	} while (ca);
	return 0;
}

static int cmp_form(const cf_encoding *enc, enum cf_form form, const char *a, size_t alen,
		    const char *b, size_t blen)
{
	cf_cursor ca, cb;

	/* Exact bytes first: equal whenever the cursor would accept them. */
	if (alen == blen && (a == b || !memcmp(a, b, alen)))
		return cursor_accepts(enc, a, alen) ? 0 : -EINVAL;
	if (cf_cursor_init(&ca, enc, form, a, alen) || cf_cursor_init(&cb, enc, form, b, blen))
		return -EINVAL;
	return compare(&ca, &cb);
}

int cf_strcmp(const cf_encoding *enc, const char *a, size_t alen, const char *b, size_t blen)
{
	return cmp_form(enc, CF_NFDI, a, alen, b, blen);
}

int cf_strcasecmp(const cf_encoding *enc, const char *a, size_t alen, const char *b, size_t blen)
{
	return cmp_form(enc, CF_NFDICF, a, alen, b, blen);
}

int cf_strcasecmp_folded(const cf_encoding *enc, const char *folded, size_t flen,
			 const char *b, size_t blen)
{
	const unsigned char *f = (const unsigned char *)folded;
	cf_cursor cb;
	size_t i = 0;
	int c;

	if (cf_cursor_init(&cb, enc, CF_NFDICF, b, blen))
		return -EINVAL;
	while ((c = cf_cursor_next(&cb)) > 0) {
		if (i == flen || f[i] != c)
			return 1;
		i++;
	}
	if (c < 0)
		return -EINVAL;
	return i == flen ? 0 : 1;
}

int cf_casefold_hash(const cf_encoding *enc, const char *s, size_t len, uint64_t *hash)
{
	struct cf_hasher hs;
	cf_cursor cur;
	int c, err;

	if ((err = cf_cursor_init(&cur, enc, CF_NFDICF, s, len)))
		return err;
	cf_hash_init(&hs);
	while ((c = cf_cursor_next(&cur)) > 0)
		cf_hash_byte(&hs, (unsigned char)c);
	if (c < 0)
		return c;
	*hash = cf_hash_final(&hs);
	return 0;
}

/* With CF_STRICT a name the kernel would refuse to create is an error. */
static int strict_reject(const cf_encoding *enc, const char *s, size_t len)
{
	return (enc->flags & CF_STRICT) && cf_validate(enc, s, len);
}

int cf_name_match(const cf_encoding *enc, const char *a, size_t alen, const char *b, size_t blen)
{
	if (strict_reject(enc, a, alen) || strict_reject(enc, b, blen))
		return -EINVAL;
	if (alen == blen && !memcmp(a, b, alen))
		return 1;
	/* A name that cannot be folded is opaque bytes, already found
	 * different. */
	return cf_strcasecmp(enc, a, alen, b, blen) == 0;
}

int cf_name_hash(const cf_encoding *enc, const char *s, size_t len, uint64_t *hash)
{
	struct cf_hasher hs;

	if (strict_reject(enc, s, len))
		return -EINVAL;
	if (cf_casefold_hash(enc, s, len, hash) == 0)
		return 0;
	cf_hash_init(&hs);
	for (size_t i = 0; i < len; i++)
		cf_hash_byte(&hs, (unsigned char)s[i]);
	*hash = cf_hash_final(&hs);
	return 0;
}
