/* The streaming normalizer shared by every whole-name operation. */
#ifndef CF_CURSOR_H
#define CF_CURSOR_H

#include "casefold.h"

/* Start a cursor without argument checks (enc and form are trusted). */
int cf_cursor_start(cf_cursor *cur, const cf_encoding *enc, enum cf_form form,
		    const char *s, size_t len);

#endif
