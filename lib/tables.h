/* Access to the generated Unicode tables (lib/tables/unicode_tables.c). */
#ifndef CF_TABLES_H
#define CF_TABLES_H

#include <stdint.h>

#include "tables/unicode_tables.h"

/* Character flags, as written by gen/mktables. */
#define CF_F_IGNORABLE 0x01 /* Default_Ignorable_Code_Point */
#define CF_F_HANGUL 0x02    /* precomposed Hangul syllable */
#define CF_F_NFD 0x04       /* has a canonical decomposition */
#define CF_F_CF 0x08        /* has a case folding */
#define CF_F_CF_IS_NFD 0x10 /* the folding equals the decomposition */
#define CF_F_NFD_FLAT 0x20  /* the decomposition is all starters */
#define CF_F_CF_FLAT 0x40   /* the folding is all starters */

/* Second flags byte (gen/packed.h). */
#define CF_F2_NFD_TAIL 0x01 /* decomposition: starters, then marks in order, none newer */
#define CF_F2_CF_TAIL 0x02  /* the same for the folding */
#define CF_F2_NFD_LEAD 0x04 /* decomposition begins with a starter */
#define CF_F2_CF_LEAD 0x08  /* folding begins with a starter */

/* What the tables say about one code point. */
struct cf_char {
	uint8_t age;   /* version index; 0 = unassigned */
	uint8_t ccc;   /* canonical combining class */
	uint8_t flags; /* CF_F_* */
	uint8_t flags2; /* CF_F2_* */
	const unsigned char *nfd; /* NUL-terminated mapping when CF_F_NFD */
	const unsigned char *cf;  /* NUL-terminated mapping when CF_F_CF */
};

static inline unsigned cf_value(uint32_t c)
{
	/* Two-byte characters (Latin, Greek, Cyrillic, ...) skip the trie. */
	if (c - 0x80 < 0x800 - 0x80)
		return cf_direct2[c - 0x80];
	if (c >= CF_GAP_FIRST) {
		if (c < CF_GAP_END)
			return (c & 0xFFFE) == 0xFFFE ? CF_GAP_NONCHAR_VALUE : CF_GAP_VALUE;
		c -= CF_GAP_END - CF_GAP_FIRST;
	}
	unsigned mid = ((unsigned)cf_trie1[c >> CF_SHIFT1] << (CF_SHIFT1 - CF_SHIFT2)) +
		       ((c >> CF_SHIFT2) & ((1u << (CF_SHIFT1 - CF_SHIFT2)) - 1));
	return cf_trie3[cf_trie2[mid] + (c & ((1u << CF_SHIFT2) - 1))];
}

static inline struct cf_char cf_char_lookup(uint32_t c)
{
	unsigned v = cf_value(c);
	struct cf_char ch;
	const uint8_t *cls;

	if (v < 0x8000) {
		cls = cf_classes[v];
		ch.nfd = ch.cf = 0;
	} else {
		const uint8_t *e = cf_pool + (v & 0x7FFF);
		cls = cf_classes[e[0]];
		ch.nfd = e + 1;
		ch.cf = ch.nfd;
		if (!(cls[2] & CF_F_CF_IS_NFD))
			while (*ch.cf++)
				;
	}
	ch.age = cls[0];
	ch.ccc = cls[1];
	ch.flags = cls[2];
	ch.flags2 = cls[3];
	return ch;
}

#endif
