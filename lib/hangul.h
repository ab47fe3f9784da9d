/* Algorithmic decomposition of precomposed Hangul syllables (Unicode 3.12). */
#ifndef CF_HANGUL_H
#define CF_HANGUL_H

#include <stdint.h>

enum { CF_SBASE = 0xAC00, CF_LBASE = 0x1100, CF_VBASE = 0x1161, CF_TBASE = 0x11A7,
       CF_TCOUNT = 28, CF_NCOUNT = 588 };

static inline unsigned char *cf_put3(unsigned char *p, uint32_t c)
{
	p[0] = (unsigned char)(0xE0 | c >> 12);
	p[1] = (unsigned char)(0x80 | (c >> 6 & 0x3F));
	p[2] = (unsigned char)(0x80 | (c & 0x3F));
	return p + 3;
}

/* Write the conjoining jamo of syllable c (6 or 9 bytes, all starters);
 * returns the end. */
static inline unsigned char *cf_hangul_decompose(uint32_t c, unsigned char *p)
{
	uint32_t si = c - CF_SBASE;

	p = cf_put3(p, CF_LBASE + si / CF_NCOUNT);
	p = cf_put3(p, CF_VBASE + si % CF_NCOUNT / CF_TCOUNT);
	if (si % CF_TCOUNT)
		p = cf_put3(p, CF_TBASE + si % CF_TCOUNT);
	return p;
}

#endif
