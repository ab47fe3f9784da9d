/* The streaming normalizer shared by every whole-name operation. */
#ifndef CF_CURSOR_H
#define CF_CURSOR_H

#include "casefold.h"

/* The state behind a cf_cursor (cursor.c explains the fields).  Callers of
 * the library see only storage of cf_cursor's size, so these fields may
 * change in any release as long as they fit there. */
struct cfi_cursor {
	const unsigned char *s, *p, *ss, *sp;
	size_t len, slen;
	int16_t ccc, nccc;
	uint8_t age, form, kind, keep;
	unsigned char hangul[12];
};

/* Start a cursor without argument checks (enc and form are trusted). */
int cfi_cursor_start(struct cfi_cursor *cur, const cf_encoding *enc, enum cf_form form,
		     const char *s, size_t len);

/* Next byte of the result (1..255), 0 at the end, or -EINVAL. */
int cfi_cursor_next(struct cfi_cursor *cur);

#endif
