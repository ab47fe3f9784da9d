/* Reading UCD files in tests: from a directory, plain or bzip2-compressed
 * (Debian's unicode-data ships NormalizationTest.txt.bz2). */
#ifndef CF_TEST_UCDFILE_H
#define CF_TEST_UCDFILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ucdfile {
	FILE *f;
	int piped;
};

/* Open dir/name or dir/name.bz2; returns 0, or -1 if neither exists. */
static inline int ucd_fopen(struct ucdfile *u, const char *dir, const char *name)
{
	char path[4096], cmd[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	u->piped = 0;
	if ((u->f = fopen(path, "r")))
		return 0;
	strcat(path, ".bz2");
	if (access(path, R_OK))
		return -1;
	snprintf(cmd, sizeof(cmd), "bzip2 -dc '%s'", path);
	u->piped = 1;
	u->f = popen(cmd, "r");
	return u->f ? 0 : -1;
}

static inline void ucd_fclose(struct ucdfile *u)
{
	if (u->piped)
		pclose(u->f);
	else
		fclose(u->f);
}

/* Mark every code point with property prop in DerivedCoreProperties.txt. */
static inline int ucd_property(const char *dir, const char *prop, uint8_t *set)
{
	struct ucdfile u;
	char line[1024];
	unsigned n = 0;

	if (ucd_fopen(&u, dir, "DerivedCoreProperties.txt"))
		return -1;
	while (fgets(line, sizeof(line), u.f)) {
		unsigned lo, hi;
		char name[128];
		if (sscanf(line, "%x..%x ; %127s", &lo, &hi, name) == 3 ||
		    (sscanf(line, "%x ; %127s", &lo, name) == 2 && (hi = lo, 1)))
			if (!strcmp(name, prop) && hi < 0x110000)
				for (unsigned c = lo; c <= hi; c++, n++)
					set[c] = 1;
	}
	ucd_fclose(&u);
	return n ? 0 : -1;
}

#endif
