/*
 * Command-line options.  Every option of every verb is described once, in
 * cli_options[]: the parser and the help text are both built from it, so
 * they cannot disagree.  A verb says which options it accepts with a mask.
 */
#ifndef CLI_OPTIONS_H
#define CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "casefold.h"
#include "casefold_ext4.h"

struct cli_verb;

/* One bit per option, for a verb's mask. */
enum {
	CLI_OPT_ENCODING = 1u << 0,
	CLI_OPT_IGNORABLES = 1u << 1,
	CLI_OPT_STRICT = 1u << 2,
	CLI_OPT_NOCASE = 1u << 3,
	CLI_OPT_HEX = 1u << 4,
	CLI_OPT_NUL = 1u << 5,
	CLI_OPT_MAN = 1u << 6,
	CLI_OPT_HELP = 1u << 7, /* every verb accepts it */
	/* ext4 hashes (hash). */
	CLI_OPT_ALG = 1u << 8,
	CLI_OPT_UNSIGNED = 1u << 9,
	CLI_OPT_SEED = 1u << 10,
	CLI_OPT_CASEFOLD = 1u << 11,
	/* Tree walkers (audit, convert). */
	CLI_OPT_JSON = 1u << 16,
	CLI_OPT_NUL_RECORDS = 1u << 17, /* -0 for output only */
	CLI_OPT_FOLLOW = 1u << 18,
	CLI_OPT_CROSS_MOUNTS = 1u << 19,
	CLI_OPT_ON_COLLISION = 1u << 20,
	CLI_OPT_DRY_RUN = 1u << 21,
	/* A mounted overlay view's layers (view). */
	CLI_OPT_SET = 1u << 22,
	CLI_OPT_ADD = 1u << 23,
	CLI_OPT_ABOVE = 1u << 24,
	CLI_OPT_REMOVE = 1u << 25,
	CLI_OPT_UPPER = 1u << 26,
	CLI_OPT_WORKDIR = 1u << 27,
};

/* Options whose argument may be left out: --casefold or --casefold=NAME. */
#define CLI_OPTS_OPTIONAL_ARG CLI_OPT_CASEFOLD

/* The options fold and normalize share; cmp and validate take subsets. */
#define CLI_OPTS_RULE (CLI_OPT_ENCODING | CLI_OPT_IGNORABLES | CLI_OPT_STRICT)

struct cli_option {
	unsigned bit;      /* CLI_OPT_* */
	const char *name;  /* long name, without "--" */
	char short_name;   /* 0 if none */
	const char *arg;   /* name of the argument in help, NULL if none */
	const char *help;  /* lines of at most 54 columns */
};

extern const struct cli_option cli_options[];
extern const size_t cli_option_count;

/* A verb's parsed command line: what the verb's work needs, nothing else. */
struct cli_args {
	cf_encoding enc;  /* --encoding, --ignorables and --strict, loaded */
	bool strict;      /* --strict */
	bool nocase;      /* --nocase */
	bool hex;         /* --hex */
	bool nul;         /* -0 */
	bool man;         /* --man */
	bool casefold;    /* --casefold: enc applies (hash) */
	enum cf_ext4_hash alg;  /* --alg and --unsigned; default half_md4 */
	uint32_t seed[4];       /* --seed, as words; all zero: ext4's default */
	bool json;        /* --json */
	bool follow;      /* --follow */
	bool cross_mounts; /* --cross-mounts */
	bool rename;      /* --on-collision=rename (else abort) */
	bool dry_run;     /* --dry-run */
	const char *set, *add, *above, *remove;  /* view: --set FILE, ... */
	const char *upper, *workdir;             /* view: --upper DIR --workdir DIR */
	char **operands;  /* what follows the options, in order */
	int noperands;
};

/* The encoding used when --encoding is not given: the one ext4 stores. */
#define CLI_DEFAULT_ENCODING "utf8-12.1.0"

/* cli_parse() results besides CLI_EXIT_TROUBLE. */
enum { CLI_PARSED = 0, CLI_PARSED_HELP = -1 };

/*
 * Parse argv (argv[0] is the verb's name) against the options the verb
 * accepts and its operand count.  Returns CLI_PARSED, CLI_PARSED_HELP when
 * --help was given, or CLI_EXIT_TROUBLE after reporting a usage error.
 */
int cli_parse(const struct cli_verb *verb, int argc, char **argv,
	      struct cli_args *args);

#endif
