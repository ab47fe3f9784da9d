/* Shared declarations of the table generator. */
#ifndef GEN_MKTABLES_H
#define GEN_MKTABLES_H

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

struct tables {
	uint8_t classes[CLASS_MAX][4]; /* age, ccc, flags, flags2 */
	unsigned nclasses;
	uint8_t pool[POOL_MAX];
	unsigned npool;
	unsigned map_max; /* longest mapping string, in bytes */
	struct trie trie;
};

_Noreturn void fatal(const char *fmt, ...);

/* Full decomposition (fold = 0) or folding (fold = 1) of c; returns length. */
int full_mapping(const struct ucd *u, uint32_t c, int fold, uint32_t *out);
int utf8_put(uint32_t c, uint8_t *p);

void check_sources(const struct ucd *u);
void check_tables(struct ucd *u, const struct tables *t, const char *dir);
void emit(const struct ucd *u, const struct tables *t, const char *outdir);

#endif
