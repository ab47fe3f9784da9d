/* Writing the generated header and source, deterministically. */
#include <stdio.h>
#include <stdlib.h>

#include "packed.h"

static void banner(FILE *f, const struct ucd *u)
{
	fprintf(f, "/*\n * generated — do not edit.\n"
		   " * Made by gen/mktables (`make regen UCD=DIR`) from the Unicode Character\n"
		   " * Database %s; inputs and their SHA-256:\n", u->version);
	for (unsigned i = 0; i < u->nfiles; i++)
		fprintf(f, " *   %s  %s\n", u->files[i].sha256, u->files[i].name);
	fprintf(f, " */\n");
}

/* The rest of an array with an element per Unicode version (format: of
 * major and minor), per_line a line, and its end. */
static void per_version(FILE *f, const struct ucd *u, const char *format, unsigned per_line)
{
	for (unsigned i = 1; i <= u->nversions; i++) {
		fputs(i % per_line ? " " : "\n\t", f);
		fprintf(f, format, u->vmajor[i], u->vminor[i]);
	}
	fprintf(f, "\n};\n");
}

static void array16(FILE *f, const char *name, const uint16_t *a, unsigned n)
{
	fprintf(f, "\nconst uint16_t %s[%u] = {", name, n);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%s0x%04x,", i % 12 ? " " : "\n\t", a[i]);
	fprintf(f, "\n};\n");
}

static void emit_header(const struct ucd *u, const struct tables *t, FILE *f)
{
	const struct trie *tr = &t->trie;

	banner(f, u);
	fprintf(f, "#ifndef CF_UNICODE_TABLES_H\n#define CF_UNICODE_TABLES_H\n\n#include <stdint.h>\n\n");
	fprintf(f, "#define CF_UCD_VERSION \"%s\"\n", u->version);
	fprintf(f, "#define CF_NVERSIONS %u /* ages 1..CF_NVERSIONS; 0 = unassigned */\n", u->nversions);
	fprintf(f, "#define CF_SHIFT1 %u\n#define CF_SHIFT2 %u\n", tr->shift1, tr->shift2);
	fprintf(f, "#define CF_MAP_MAX %u /* longest mapping, in bytes */\n", t->map_max);
	fprintf(f, "#define CF_GAP_FIRST 0x%X /* planes without characters: */\n", GAP_FIRST);
	fprintf(f, "#define CF_GAP_END 0x%X   /* CF_GAP_VALUE, or for U+xFFFE/F */\n", GAP_END);
	fprintf(f, "#define CF_GAP_VALUE 0x%04X /* CF_GAP_NONCHAR_VALUE */\n", t->gap_value);
	fprintf(f, "#define CF_GAP_NONCHAR_VALUE 0x%04X\n", t->gap_nonchar_value);
	fprintf(f, "#define CF_TABLE_BYTES %zu /* trie + classes + pool + versions */\n\n",
		(size_t)tr->n1 + 2 * ((size_t)tr->n2 + tr->n3 + DIRECT2_COUNT) + 4 * (size_t)t->nclasses + t->npool +
			2 * (size_t)(u->nversions + 1));
	fprintf(f, "extern const uint8_t cf_trie1[%u];\n", tr->n1);
	fprintf(f, "extern const uint16_t cf_trie2[%u];\n", tr->n2);
	fprintf(f, "extern const uint16_t cf_direct2[%u]; /* U+0080..U+07FF */\n", DIRECT2_COUNT);
	fprintf(f, "extern const uint16_t cf_trie3[%u];\n", tr->n3);
	fprintf(f, "extern const uint8_t cf_classes[%u][4];\n", t->nclasses);
	fprintf(f, "extern const uint8_t cf_pool[%u];\n", t->npool);
	fprintf(f, "extern const uint8_t cf_ages[%u][2];\n", u->nversions + 1);
	fprintf(f, "extern const char *const cf_utf8_names[%u];\n", u->nversions + 1);
	fprintf(f, "\n#endif\n");
}

static void emit_source(const struct ucd *u, const struct tables *t, FILE *f)
{
	const struct trie *tr = &t->trie;

	banner(f, u);
	fprintf(f, "#include \"unicode_tables.h\"\n");
	fprintf(f, "\n/* Unicode version of each age index: {major, minor}. */\n");
	fprintf(f, "const uint8_t cf_ages[%u][2] = {\n\t{0, 0},", u->nversions + 1);
	per_version(f, u, "{%u, %u},", 6);
	fprintf(f, "\nconst uint8_t cf_trie1[%u] = {", tr->n1);
	for (unsigned i = 0; i < tr->n1; i++)
		fprintf(f, "%s%u,", i % 16 ? " " : "\n\t", tr->l1[i]);
	fprintf(f, "\n};\n");
	fprintf(f, "\n/* Canonical encoding name of each age index. */\n");
	fprintf(f, "const char *const cf_utf8_names[%u] = {\n\t0,", u->nversions + 1);
	per_version(f, u, "\"utf8-%u.%u.0\",", 5);
	array16(f, "cf_trie2", tr->l2, tr->n2);
	array16(f, "cf_direct2", t->direct2, DIRECT2_COUNT);
	array16(f, "cf_trie3", tr->l3, tr->n3);
	fprintf(f, "\n/* {age, ccc, flags, flags2} of every character, indexed by trie values < 0x8000\n * and by the first byte of a pool entry. */\n");
	fprintf(f, "const uint8_t cf_classes[%u][4] = {", t->nclasses);
	for (unsigned i = 0; i < t->nclasses; i++)
		fprintf(f, "%s{%u, %u, %u, %u},", i % 5 ? " " : "\n\t", t->classes[i][0],
			t->classes[i][1], t->classes[i][2], t->classes[i][3]);
	fprintf(f, "\n};\n");
	fprintf(f, "\n/* {class, nfd..., 0, [cf..., 0]} of characters with a mapping. */\n");
	fprintf(f, "const uint8_t cf_pool[%u] = {", t->npool);
	for (unsigned i = 0; i < t->npool; i++)
		fprintf(f, "%s0x%02x,", i % 12 ? " " : "\n\t", t->pool[i]);
	fprintf(f, "\n};\n");
}

void emit(const struct ucd *u, const struct tables *t, const char *outdir)
{
	FILE *h = open_in(outdir, "unicode_tables.h", "w");
	FILE *c = open_in(outdir, "unicode_tables.c", "w");

	emit_header(u, t, h);
	emit_source(u, t, c);
	if (fclose(h) || fclose(c))
		fatal("write error in %s", outdir);
	fprintf(stderr, "mktables: Unicode %s, %u versions, %u bytes of tables\n", u->version,
		u->nversions, (unsigned)(t->trie.n1 + 2 * (t->trie.n2 + t->trie.n3 + DIRECT2_COUNT) + 4 * t->nclasses +
					 t->npool + 2 * (u->nversions + 1)));
}
