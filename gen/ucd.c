/* Parsing of the UCD files: UnicodeData, DerivedAge, CaseFolding,
 * DerivedCoreProperties.  Any surprise in the input is fatal.  Then the full
 * mappings the parsed data implies, for building and for checking. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucd.h"

void fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("mktables: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

FILE *open_in(const char *dir, const char *name, const char *mode)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, mode);
	if (!f)
		fatal("cannot %s %s", *mode == 'w' ? "write" : "open", path);
	return f;
}

FILE *ucd_open(struct ucd *u, const char *dir, const char *name)
{
	FILE *f = open_in(dir, name, "r");

	if (u->nfiles == sizeof(u->files) / sizeof(u->files[0]))
		fatal("too many input files");
	u->files[u->nfiles].name = name;
	sha256_file(f, u->files[u->nfiles].sha256);
	u->nfiles++;
	return f;
}

/* Split a data line at ';' into at most max fields, comments removed,
 * surrounding blanks trimmed.  Returns the number of fields. */
static int fields(char *line, char **f, int max)
{
	char *hash = strchr(line, '#');
	int n = 0;

	if (hash)
		*hash = '\0';
	for (char *p = line; n < max;) {
		char *end = strchr(p, ';');

		if (end)
			*end = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		char *e = p + strlen(p);
		while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
			*--e = '\0';
		f[n++] = p;
		if (!end)
			break;
		p = end + 1;
	}
	return (n == 1 && f[0][0] == '\0') ? 0 : n;
}

static uint32_t hex(const char *s, char **end)
{
	unsigned long v = strtoul(s, end, 16);

	if (*end == s || v >= NCODEPOINTS)
		fatal("bad code point '%s'", s);
	return (uint32_t)v;
}

/* "0041..005A" or "0041" */
static void range(const char *s, uint32_t *lo, uint32_t *hi)
{
	char *end;

	*lo = *hi = hex(s, &end);
	if (end[0] == '.' && end[1] == '.')
		*hi = hex(end + 2, &end);
	if (*end || *hi < *lo)
		fatal("bad range '%s'", s);
}

/* A space-separated list of code points; returns how many. */
static int cplist(const char *s, uint32_t *out, int max)
{
	int n = 0;
	char *end;

	while (*s) {
		if (n == max)
			fatal("mapping too long: '%s'", s);
		out[n++] = hex(s, &end);
		s = end;
		while (*s == ' ')
			s++;
	}
	return n;
}

static void load_age(struct ucd *u, const char *dir)
{
	FILE *f = ucd_open(u, dir, "DerivedAge.txt");
	char line[1024], *fl[4];
	unsigned major, minor, last = 0;

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "# DerivedAge-%u.%u", &major, &minor) == 2)
			snprintf(u->version, sizeof(u->version), "%u.%u.0", major, minor);
		if (fields(line, fl, 4) != 2)
			continue;
		if (sscanf(fl[1], "%u.%u", &major, &minor) != 2)
			fatal("bad age '%s'", fl[1]);
		/* Versions appear in increasing order: give each a 1-based index. */
		unsigned code = major << 8 | minor;
		if (code > last) {
			if (u->nversions + 1 == MAX_VERSIONS)
				fatal("too many versions");
			u->nversions++;
			u->vmajor[u->nversions] = (uint8_t)major;
			u->vminor[u->nversions] = (uint8_t)minor;
			last = code;
		}
		unsigned age = 0;
		for (unsigned i = 1; i <= u->nversions; i++)
			if (u->vmajor[i] == major && u->vminor[i] == minor)
				age = i;
		if (!age)
			fatal("age %s out of order", fl[1]);
		uint32_t lo, hi;
		range(fl[0], &lo, &hi);
		for (uint32_t c = lo; c <= hi; c++)
			u->cp[c].age = (uint8_t)age;
	}
	fclose(f);
	if (!u->version[0] || !u->nversions)
		fatal("DerivedAge.txt has no version header");
}

static void load_unicodedata(struct ucd *u, const char *dir)
{
	FILE *f = ucd_open(u, dir, "UnicodeData.txt");
	char line[1024], *fl[16];

	while (fgets(line, sizeof(line), f)) {
		if (fields(line, fl, 16) < 6)
			continue;
		char *end;
		uint32_t c = hex(fl[0], &end);
		int ccc = atoi(fl[3]);

		if (ccc < 0 || ccc > 254)
			fatal("bad ccc for %04X", c);
		/* Ranges (<..., First>/<..., Last>) have ccc 0 and no decomposition:
		 * the zero-initialised entries between them are already right. */
		u->cp[c].ccc = (uint8_t)ccc;
		if (fl[5][0] && fl[5][0] != '<')
			u->cp[c].ndecomp = (uint8_t)cplist(fl[5], u->cp[c].decomp, 2);
	}
	fclose(f);
}

static void load_casefolding(struct ucd *u, const char *dir)
{
	FILE *f = ucd_open(u, dir, "CaseFolding.txt");
	char line[1024], *fl[4];

	while (fgets(line, sizeof(line), f)) {
		if (fields(line, fl, 4) < 3)
			continue;
		/* The kernel uses full folding: statuses C and F, never S or T. */
		if (strcmp(fl[1], "C") && strcmp(fl[1], "F"))
			continue;
		char *end;
		uint32_t c = hex(fl[0], &end);
		u->cp[c].nfold = (uint8_t)cplist(fl[2], u->cp[c].fold, 3);
	}
	fclose(f);
}

static void load_ignorables(struct ucd *u, const char *dir)
{
	FILE *f = ucd_open(u, dir, "DerivedCoreProperties.txt");
	char line[1024], *fl[4];
	unsigned n = 0;

	while (fgets(line, sizeof(line), f)) {
		if (fields(line, fl, 4) < 2 || strcmp(fl[1], "Default_Ignorable_Code_Point"))
			continue;
		uint32_t lo, hi;
		range(fl[0], &lo, &hi);
		for (uint32_t c = lo; c <= hi; c++, n++)
			u->cp[c].ignorable = 1;
	}
	fclose(f);
	if (!n)
		fatal("no Default_Ignorable_Code_Point in DerivedCoreProperties.txt");
}

void ucd_load(struct ucd *u, const char *dir)
{
	memset(u, 0, sizeof(*u));
	u->cp = calloc(NCODEPOINTS, sizeof(*u->cp));
	if (!u->cp)
		fatal("out of memory");
	load_age(u, dir);
	load_unicodedata(u, dir);
	load_casefolding(u, dir);
	load_ignorables(u, dir);
}

static void expand(const struct ucd *u, uint32_t c, int fold, uint32_t *out, int *n, int depth)
{
	const struct ucd_char *ch = &u->cp[c];

	if (depth > 8)
		fatal("mapping of U+%04X does not terminate", c);
	if (fold && ch->nfold) {
		for (int i = 0; i < ch->nfold; i++)
			expand(u, ch->fold[i], fold, out, n, depth + 1);
	} else if (ch->ndecomp) {
		for (int i = 0; i < ch->ndecomp; i++)
			expand(u, ch->decomp[i], fold, out, n, depth + 1);
	} else {
		if (*n == MAX_MAP)
			fatal("mapping of U+%04X too long", c);
		out[(*n)++] = c;
	}
}

int full_mapping(const struct ucd *u, uint32_t c, int fold, uint32_t *out)
{
	int n = 0;

	expand(u, c, fold, out, &n, 0);
	return n;
}
