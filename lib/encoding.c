/* Encoding names and versions. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "casefold.h"
#include "encoding.h"
#include "tables.h"

/* The on-disk default: the only encoding ext4 knows. */
static const char default_utf8[] = "12.1.0";

/* Parse "X.Y" or "X.Y.Z" (Z must be 0) into an age index; 0 if unknown. */
static unsigned age_of(const char *v)
{
	unsigned major, minor, patch = 0;
	int end = 0;

	if (sscanf(v, "%u.%u%n", &major, &minor, &end) != 2)
		return 0;
	if (v[end] == '.') {
		int more = 0;
		if (sscanf(v + end + 1, "%u%n", &patch, &more) != 1)
			return 0;
		end += 1 + more;
	}
	if (v[end] || patch != 0 || v[0] == '+' || v[0] == '-' || v[0] == ' ')
		return 0;
	for (unsigned i = 1; i <= CF_NVERSIONS; i++)
		if (cf_ages[i][0] == major && cf_ages[i][1] == minor)
			return i;
	return 0;
}

int cf_encoding_load(cf_encoding *enc, const char *name, unsigned flags)
{
	unsigned age;

	if (!enc || !name || (flags & ~(CF_STRICT | CF_KEEP_IGNORABLES)))
		return -EINVAL;
	if (!strcmp(name, "ascii")) {
		enc->kind = CF_KIND_ASCII;
		enc->age = 0;
		enc->flags = (uint16_t)flags;
		return 0;
	}
	if (!strcmp(name, "utf8"))
		name = default_utf8;
	else if (!strncmp(name, "utf8-", 5))
		name += 5;
	age = age_of(name);
	if (!age)
		return -ENOENT;
	enc->kind = CF_KIND_UTF8;
	enc->age = (uint8_t)age;
	enc->flags = (uint16_t)flags;
	return 0;
}

const char *cf_encoding_name(const cf_encoding *enc)
{
	if (enc->kind == CF_KIND_ASCII)
		return "ascii";
	return enc->age <= CF_NVERSIONS ? cf_utf8_names[enc->age] : NULL;
}

uint32_t cf_encoding_unicode_version(const cf_encoding *enc)
{
	if (enc->kind == CF_KIND_ASCII || enc->age > CF_NVERSIONS)
		return 0;
	return (uint32_t)cf_ages[enc->age][0] << 16 | (uint32_t)cf_ages[enc->age][1] << 8;
}

int cf_encoding_is_supported(const char *name)
{
	cf_encoding enc;

	return cf_encoding_load(&enc, name, 0) == 0;
}

const char *cf_encoding_latest(void)
{
	return cf_utf8_names[CF_NVERSIONS];
}

const char *cf_encoding_list(size_t i)
{
	if (i < CF_NVERSIONS)
		return cf_utf8_names[CF_NVERSIONS - i];
	return i == CF_NVERSIONS ? "ascii" : NULL;
}

const char *cf_unicode_data_version(void)
{
	return CF_UCD_VERSION;
}
