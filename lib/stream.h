/* The fast producer of nfdi/nfdicf output, in pieces. */
#ifndef CF_STREAM_H
#define CF_STREAM_H

#include <sys/types.h>

#include "casefold.h"

/* Room a caller must offer cfi_stream_fill: the longest piece it writes. */
#define CFI_STREAM_MIN 16

struct cfi_stream {
	struct cfi_cursor cur; /* position in the name; the kernel's state inside runs */
	int slow;      /* the cursor is inside a run of combining marks */
	int done;      /* the end of the name was reached: no more bytes */
};

/* Start streaming s; -EINVAL if it starts with a continuation byte. */
int cfi_stream_start(struct cfi_stream *st, const cf_encoding *enc, enum cf_form form,
		    const char *s, size_t len);

/* Write the next bytes of the result into buf[0..cap), cap >= CFI_STREAM_MIN.
 * Returns how many (> 0), 0 at the end, or -EINVAL. */
ssize_t cfi_stream_fill(struct cfi_stream *st, unsigned char *buf, size_t cap);

/*
 * The longest prefix of s made of ASCII bytes other than NUL, written to
 * out (room for len bytes) lower-cased if fold.  Such bytes are starters the
 * kernel emits at once, so the result's first bytes are exactly these, and
 * a stream may go on after them (cfi_stream_skip).  Returns its length.
 */
size_t cfi_ascii_prefix(const unsigned char *s, size_t len, unsigned char *out, int fold);

/* Move a fresh stream past n bytes already produced by cfi_ascii_prefix. */
void cfi_stream_skip(struct cfi_stream *st, size_t n);

#endif
