/*
 * Checks of the -o options before anything is mounted: numbers in their
 * ranges, and option names that are neither casefoldfs's nor libfuse's
 * but close to one (a typo gets the name it probably meant).
 */
#ifndef CFS_OPTCHECK_H
#define CFS_OPTCHECK_H

#include <stdint.h>

/* A numeric -o option and the values it accepts. */
struct optcheck_range {
	const char *name;       /* "fd_cache" */
	uint64_t min, max;
	const char *unit;       /* "descriptors", shown in the message */
};

/*
 * Parses text, the value of -o NAME=text, as a decimal number in r's
 * range: digits only (no sign, no spaces, no suffix), at most r->max.
 * NULL text: *out is left as it is.  On error says why on stderr and
 * returns -1.
 */
int optcheck_number(const struct optcheck_range *r, const char *text, uint64_t *out);

/*
 * arg is one -o option ("fd_cach=5") that no casefoldfs option matched.
 * Known to libfuse: 0.  Otherwise, when a known option's name is close to
 * its name, says "unknown option ...; did you mean ...?" on stderr and
 * returns -1; else 0, and libfuse refuses it in its own words.
 */
int optcheck_unknown(const char *arg);

#endif /* CFS_OPTCHECK_H */
