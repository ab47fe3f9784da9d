/* The packed tables: their layout, as mktables.c builds them, check.c reads
 * them back and emit.c writes them out. */
#ifndef GEN_PACKED_H
#define GEN_PACKED_H

#include <stddef.h>
#include <stdint.h>

#include "ucd.h"

/* Flags of a character (mirrored by lib/tables.h). */
#define F_IGNORABLE 0x01 /* Default_Ignorable_Code_Point */
#define F_HANGUL 0x02    /* precomposed Hangul syllable */
#define F_NFD 0x04       /* has a canonical decomposition */
#define F_CF 0x08        /* has a case folding (after decomposition) */
#define F_CF_IS_NFD 0x10 /* the folding equals the decomposition */
#define F_NFD_FLAT 0x20  /* the decomposition is all starters (ccc 0) */
#define F_CF_FLAT 0x40   /* the folding is all starters (ccc 0) */

/* Second flags byte: what lets the library skip canonical reordering. */
#define F2_NFD_TAIL 0x01 /* decomposition: starters, then marks in order, none newer */
#define F2_CF_TAIL 0x02  /* the same for the folding */
#define F2_NFD_LEAD 0x04 /* decomposition begins with a starter */
#define F2_CF_LEAD 0x08  /* folding begins with a starter */

#define CLASS_MAX 256
#define POOL_MAX 0x8000

struct trie {
	unsigned shift1, shift2;
	unsigned n1, n2, n3;
	uint8_t l1[NCODEPOINTS >> 8];
	uint16_t l2[NCODEPOINTS >> 3];
	uint16_t l3[NCODEPOINTS];
};

/* Values of U+0080..U+07FF, the two-byte characters, without the trie. */
#define DIRECT2_FIRST 0x80
#define DIRECT2_COUNT (0x800 - 0x80)

/* Planes 4..13 hold no character, only the two noncharacters that end each
 * plane: the trie skips them (two values for all), and indexes planes 14..16
 * right after plane 3. */
#define GAP_FIRST 0x40000
#define GAP_END 0xE0000
#define TRIE_SPAN (NCODEPOINTS - (GAP_END - GAP_FIRST))

static inline int gap_nonchar(uint32_t c)
{
	return (c & 0xFFFE) == 0xFFFE;
}

static inline uint32_t trie_index(uint32_t c)
{
	return c < GAP_FIRST ? c : c - (GAP_END - GAP_FIRST);
}

struct tables {
	uint16_t gap_value, gap_nonchar_value;
	uint16_t direct2[DIRECT2_COUNT];
	uint8_t classes[CLASS_MAX][4]; /* age, ccc, flags, flags2 */
	unsigned nclasses;
	uint8_t pool[POOL_MAX];
	unsigned npool;
	unsigned map_max; /* longest mapping string, in bytes */
	struct trie trie;
};

void check_sources(const struct ucd *u);
void check_tables(struct ucd *u, const struct tables *t, const char *dir);
void emit(const struct ucd *u, const struct tables *t, const char *outdir);

#endif
