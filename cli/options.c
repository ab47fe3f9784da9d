/* Option parsing for every verb, driven by the one table of options. */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "diag.h"
#include "ext4/sb.h"
#include "options.h"
#include "verb.h"

const struct cli_option cli_options[] = {
	{ CLI_OPT_ENCODING, "encoding", 0, "NAME",
	  "Unicode rules to apply: utf8-X.Y.Z or X.Y.Z for any\n"
	  "version from 1.1.0 to the latest, utf8 (= utf8-12.1.0,\n"
	  "the one ext4 stores on disk) or ascii; default\n"
	  "utf8-12.1.0.  'casefold versions' lists them." },
	{ CLI_OPT_IGNORABLES, "ignorables", 0, "strip|keep",
	  "strip (the default, as the kernel does) removes\n"
	  "Default_Ignorable code points such as U+200B; keep\n"
	  "treats them as ordinary characters." },
	{ CLI_OPT_STRICT, "strict", 0, NULL,
	  "treat names that are not valid for the encoding as\n"
	  "errors, as ext4's strict mode does, including the stray\n"
	  "continuation bytes the kernel otherwise passes through." },
	{ CLI_OPT_NOCASE, "nocase", 0, NULL,
	  "compare case-insensitively: nfdicf, the rule of a\n"
	  "casefolded directory, instead of nfdi." },
	{ CLI_OPT_HEX, "hex", 0, NULL,
	  "print each result as lowercase hex bytes (61cc8a)." },
	{ CLI_OPT_NUL, "null", '0', NULL,
	  "names on standard input are separated by NUL bytes\n"
	  "instead of newlines, and every result line ends with a\n"
	  "NUL byte instead of a newline." },
	{ CLI_OPT_JSON, "json", 0, NULL,
	  "write the report as one JSON document instead." },
	{ CLI_OPT_NUL_RECORDS, "null", '0', NULL,
	  "write each finding as NUL-terminated fields: the kind,\n"
	  "then one path per name, then an empty field." },
	{ CLI_OPT_FOLLOW, "follow", 0, NULL,
	  "follow symbolic links to directories (a directory is\n"
	  "never entered twice on one branch)." },
	{ CLI_OPT_CROSS_MOUNTS, "cross-mounts", 0, NULL,
	  "descend into directories that are mount points." },
	{ CLI_OPT_ON_COLLISION, "on-collision", 0, "abort|rename",
	  "abort (the default) changes nothing when names would\n"
	  "collide; rename renames all but the first of each set\n"
	  "(NAME~0, NAME~1, ...)." },
	{ CLI_OPT_DRY_RUN, "dry-run", 0, NULL,
	  "print the plan and change nothing." },
	{ CLI_OPT_SET, "set", 0, "FILE",
	  "the lower layers are now those of FILE: one directory\n"
	  "a line, top first (as -o layers=FILE)." },
	{ CLI_OPT_ADD, "add", 0, "DIR",
	  "add DIR as a lower layer, on top or --above one." },
	{ CLI_OPT_ABOVE, "above", 0, "NAME",
	  "with --add: just above the layer NAME (its path, or\n"
	  "its last component if no other layer's is the same)." },
	{ CLI_OPT_REMOVE, "remove", 0, "NAME",
	  "take the lower layer NAME out of the view." },
	{ CLI_OPT_UPPER, "upper", 0, "DIR",
	  "DIR is now the upper layer, where writes go (with\n"
	  "--workdir; with --set too: a profile switch, one\n"
	  "change)." },
	{ CLI_OPT_WORKDIR, "workdir", 0, "DIR",
	  "with --upper: its work directory, an empty directory\n"
	  "on the same filesystem (the old one may be given\n"
	  "again)." },
	{ CLI_OPT_ALG, "alg", 0, "ALG",
	  "directory hash: half_md4 (the default, as mke2fs\n"
	  "chooses), tea or legacy." },
	{ CLI_OPT_UNSIGNED, "unsigned", 0, NULL,
	  "hash bytes as unsigned char, as a file system whose\n"
	  "superblock says unsigned_directory_hash (made on an\n"
	  "arm or powerpc host) does." },
	{ CLI_OPT_SEED, "seed", 0, "UUID",
	  "the superblock's hash seed, as dumpe2fs prints it\n"
	  "(\"Directory Hash Seed\"); default: none, the fixed\n"
	  "seed ext4 uses when the field is zero." },
	{ CLI_OPT_CASEFOLD, "casefold", 0, "ENCODING",
	  "hash names as a casefolded directory does: the\n"
	  "nfdicf form, or the raw bytes of a name that cannot\n"
	  "be folded.  ENCODING as --encoding, default\n"
	  "utf8-12.1.0." },
	{ CLI_OPT_MAN, "man", 0, NULL,
	  "print the whole manual page, in roff, instead." },
	{ CLI_OPT_HELP, "help", 'h', NULL,
	  "print this help and exit." },
};
#define NOPTIONS (sizeof(cli_options) / sizeof(cli_options[0]))
const size_t cli_option_count = NOPTIONS;

/*
 * getopt_long returns 256 + index for a long option and the character for a
 * short one, so that an error's optopt tells which form was misused.
 */
static const struct cli_option *option_of_value(int c, unsigned accepted)
{
	/* Two options may share a short name (-0) if no verb takes both. */
	for (size_t i = 0; i < NOPTIONS; i++)
		if (c == 256 + (int)i ||
		    (c == cli_options[i].short_name && c && (cli_options[i].bit & accepted)))
			return &cli_options[i];
	return NULL;
}

static int load_encoding(const struct cli_verb *verb, struct cli_args *args,
			 const char *name, unsigned flags)
{
	int err = cf_encoding_load(&args->enc, name, flags);

	if (err == -ENOENT)
		return cli_usage(verb->name, "unknown encoding '%s' (see 'casefold versions')",
				 name);
	if (err < 0)
		return cli_usage(verb->name, "encoding '%s': %s", name, cf_strerror(err));
	return CLI_PARSED;
}

/* getopt_long's tables for the options a verb accepts. */
struct getopt_tables {
	/* ':' first: report a missing argument apart from an unknown option. */
	char shortopts[2 * NOPTIONS + 2];
	struct option longopts[NOPTIONS + 1];
};

static void getopt_tables(unsigned accepted, struct getopt_tables *t)
{
	size_t n = 0, ns = 0;

	t->shortopts[ns++] = ':';
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct cli_option *o = &cli_options[i];

		if (!(o->bit & accepted))
			continue;
		t->longopts[n++] = (struct option){ o->name,
			!o->arg ? no_argument : o->bit & CLI_OPTS_OPTIONAL_ARG ? optional_argument :
			required_argument, NULL, 256 + (int)i };
		if (o->short_name) {
			t->shortopts[ns++] = o->short_name;
			if (o->arg)
				t->shortopts[ns++] = ':';
		}
	}
	t->longopts[n] = (struct option){ 0 };
	t->shortopts[ns] = '\0';
}

/* What the options say before it is put into struct cli_args. */
struct pending {
	const char *encoding;
	unsigned flags;      /* for cf_encoding_load */
	int alg;             /* signed variant; --unsigned adds 3 */
	bool unsigned_hash;
};

/* The options that take a word from a fixed list. */
static int parse_choice(const struct cli_verb *verb, const struct cli_option *o,
			struct cli_args *args, struct pending *p)
{
	unsigned char seed[16];

	switch (o->bit) {
	case CLI_OPT_IGNORABLES:
		if (strcmp(optarg, "keep") == 0)
			p->flags |= CF_KEEP_IGNORABLES;
		else if (strcmp(optarg, "strip") == 0)
			p->flags &= ~CF_KEEP_IGNORABLES;
		else
			return cli_usage(verb->name,
					 "--ignorables is 'strip' or 'keep', not '%s'", optarg);
		break;
	case CLI_OPT_ON_COLLISION:
		if (strcmp(optarg, "rename") == 0)
			args->rename = true;
		else if (strcmp(optarg, "abort") == 0)
			args->rename = false;
		else
			return cli_usage(verb->name,
					 "--on-collision is 'abort' or 'rename', not '%s'",
					 optarg);
		break;
	case CLI_OPT_ALG:
		if ((p->alg = cli_ext4_hash_parse(optarg)) < 0 || p->alg > CF_EXT4_HASH_TEA)
			return cli_usage(verb->name, "--alg is 'half_md4', 'tea' or "
					 "'legacy', not '%s'", optarg);
		break;
	case CLI_OPT_SEED:
		if (cli_uuid_parse(optarg, seed) < 0)
			return cli_usage(verb->name, "--seed is a UUID such as "
					 "2d5bb4e3-4a3c-4a8e-9b3d-1f0e8c6a7b90, not '%s'",
					 optarg);
		cf_ext4_hash_seed(seed, args->seed);
		break;
	}
	return CLI_PARSED;
}

/* One option met on the command line (optarg is its argument). */
static int apply(const struct cli_verb *verb, const struct cli_option *o,
		 struct cli_args *args, struct pending *p)
{
	switch (o->bit) {
	case CLI_OPT_HELP:
		return CLI_PARSED_HELP;
	case CLI_OPT_ENCODING:
		p->encoding = optarg;
		break;
	case CLI_OPT_STRICT:
		p->flags |= CF_STRICT;
		args->strict = true;
		break;
	case CLI_OPT_NOCASE:
		args->nocase = true;
		break;
	case CLI_OPT_HEX:
		args->hex = true;
		break;
	case CLI_OPT_NUL:
	case CLI_OPT_NUL_RECORDS:
		args->nul = true;
		break;
	case CLI_OPT_JSON:
		args->json = true;
		break;
	case CLI_OPT_FOLLOW:
		args->follow = true;
		break;
	case CLI_OPT_CROSS_MOUNTS:
		args->cross_mounts = true;
		break;
	case CLI_OPT_DRY_RUN:
		args->dry_run = true;
		break;
	case CLI_OPT_MAN:
		args->man = true;
		break;
	case CLI_OPT_UNSIGNED:
		p->unsigned_hash = true;
		break;
	case CLI_OPT_SET:
		args->set = optarg;
		break;
	case CLI_OPT_ADD:
		args->add = optarg;
		break;
	case CLI_OPT_ABOVE:
		args->above = optarg;
		break;
	case CLI_OPT_REMOVE:
		args->remove = optarg;
		break;
	case CLI_OPT_UPPER:
		args->upper = optarg;
		break;
	case CLI_OPT_WORKDIR:
		args->workdir = optarg;
		break;
	case CLI_OPT_CASEFOLD:
		args->casefold = true;
		if (optarg)
			p->encoding = optarg;
		break;
	default:
		return parse_choice(verb, o, args, p);
	}
	return CLI_PARSED;
}

static int check_operands(const struct cli_verb *verb, const struct cli_args *args)
{
	if (args->noperands < verb->min_operands)
		return cli_usage(verb->name, "missing operand (casefold %s [OPTION]... %s)",
				 verb->name, verb->doc.operands);
	if (verb->max_operands >= 0 && args->noperands > verb->max_operands)
		return cli_usage(verb->name, "unexpected operand '%s'",
				 args->operands[verb->max_operands]);
	return CLI_PARSED;
}

int cli_parse(const struct cli_verb *verb, int argc, char **argv,
	      struct cli_args *args)
{
	unsigned accepted = verb->options | CLI_OPT_HELP;
	struct pending p = { .encoding = CLI_DEFAULT_ENCODING, .alg = CF_EXT4_HASH_HALF_MD4 };
	struct getopt_tables t;
	int c, r;

	getopt_tables(accepted, &t);
	*args = (struct cli_args){ 0 };
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, t.shortopts, t.longopts, NULL)) != -1) {
		if (c == '?' && optopt > 0 && optopt < 256)
			return cli_usage(verb->name, "unknown option '-%c'", optopt);
		if (c == '?')
			return cli_usage(verb->name, "invalid option '%s'", argv[optind - 1]);
		if (c == ':')
			return cli_usage(verb->name, "option '%s' needs an argument",
					 argv[optind - 1]);
		if ((r = apply(verb, option_of_value(c, accepted), args, &p)) != CLI_PARSED)
			return r;
	}

	/* The unsigned variants follow the signed ones, 3 apart. */
	args->alg = (enum cf_ext4_hash)(p.alg + (p.unsigned_hash ? 3 : 0));
	args->operands = argv + optind;
	args->noperands = argc - optind;
	if ((r = check_operands(verb, args)) != CLI_PARSED)
		return r;
	return load_encoding(verb, args, p.encoding, p.flags);
}
