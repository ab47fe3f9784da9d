/* The Unicode Character Database as the generator needs it. */
#ifndef GEN_UCD_H
#define GEN_UCD_H

#include <stdint.h>
#include <stdio.h>

#define NCODEPOINTS 0x110000
#define MAX_VERSIONS 64
#define MAX_MAP 32 /* longest full decomposition or folding, in code points */

struct ucd_char {
	uint8_t age;       /* index into ucd.versions, 1-based; 0 = unassigned */
	uint8_t ccc;       /* Canonical_Combining_Class */
	uint8_t ignorable; /* Default_Ignorable_Code_Point */
	uint8_t ndecomp;   /* canonical decomposition (one level), 0..2 */
	uint8_t nfold;     /* CaseFolding C or F mapping, 0..3 */
	uint32_t decomp[2];
	uint32_t fold[3];
};

struct ucd_file {
	const char *name;
	char sha256[65];
};

struct ucd {
	char version[16];                  /* e.g. "17.0.0", from DerivedAge.txt */
	unsigned nversions;                /* versions listed in DerivedAge.txt */
	uint8_t vmajor[MAX_VERSIONS], vminor[MAX_VERSIONS];
	struct ucd_file files[8];
	unsigned nfiles;
	struct ucd_char *cp;               /* NCODEPOINTS entries */
};

/* Read every input file from dir; exits with a message on any error. */
void ucd_load(struct ucd *u, const char *dir);

/* Open dir/name, remembering its SHA-256 for the banner. */
FILE *ucd_open(struct ucd *u, const char *dir, const char *name);

/* Full decomposition (fold = 0) or folding (fold = 1) of c; returns length. */
int full_mapping(const struct ucd *u, uint32_t c, int fold, uint32_t *out);

/* dir/name opened with fopen's mode; exits with a message on failure. */
FILE *open_in(const char *dir, const char *name, const char *mode);

/* Prints "mktables: " and the message, and exits 1. */
_Noreturn void fatal(const char *fmt, ...);

/* Hangul syllables decompose algorithmically. */
#define HANGUL_FIRST 0xAC00
#define HANGUL_LAST 0xD7A3
static inline int is_hangul(uint32_t c) { return c >= HANGUL_FIRST && c <= HANGUL_LAST; }

/* SHA-256 of a whole file, as 64 lowercase hex digits. */
void sha256_file(FILE *f, char out[65]);

#endif
