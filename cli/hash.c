/* The verb hash: ext4 directory hashes of names, as debugfs dx_hash prints them. */
#include <stdio.h>

#include "diag.h"
#include "operands.h"
#include "verb.h"

static int hash_one(void *ctx, const struct cli_out *out, const char *name, size_t len)
{
	const struct cli_args *args = ctx;
	uint32_t major, minor;
	char line[sizeof("01234567 89abcdef")];
	int err;

	/* A strict file system refuses such a name: it never gets a hash. */
	if (args->strict && (err = cf_validate(&args->enc, name, len)) < 0) {
		cli_out_error(out, cf_strerror(err));
		return 1;
	}
	err = cf_ext4_name_hash(args->casefold ? &args->enc : NULL, args->alg, args->seed, name,
				len, &major, &minor);
	if (err < 0) {
		cli_out_error(out, cf_strerror(err));
		return 1;
	}
	snprintf(line, sizeof(line), "%08x %08x", major, minor);
	cli_out_word(out, line);
	return 0;
}

static int run_hash(const struct cli_args *args)
{
	/* Encoding rules mean nothing to a directory that does not fold. */
	if (!args->casefold && args->strict)
		return cli_usage("hash", "--strict applies only with --casefold");
	if (!args->casefold && (args->enc.flags & CF_KEEP_IGNORABLES))
		return cli_usage("hash", "--ignorables applies only with --casefold");
	return cli_for_each_name(args, hash_one, (void *)args);
}

const struct cli_verb cli_verb_hash = {
	.name = "hash",
	.options = CLI_OPT_ALG | CLI_OPT_UNSIGNED | CLI_OPT_SEED | CLI_OPT_CASEFOLD |
		   CLI_OPT_IGNORABLES | CLI_OPT_STRICT | CLI_OPT_NUL,
	.min_operands = 1,
	.max_operands = -1,
	.run = run_hash,
	.doc = {
		.operands = "NAME...|-",
		.summary = "print the ext4 directory hash of names",
		.text = (const char *const[]){
			"Print the major and minor ext4 htree hash of each NAME as two\n"
			"8-digit lowercase hex numbers, the values debugfs's dx_hash\n"
			"prints: the position a directory index gives the name.  Take\n"
			"the algorithm, signedness and seed from 'casefold ext4 info'\n"
			"(or dumpe2fs -h).  legacy has no minor hash: it is 00000000.",
			"With --casefold the name is hashed as in a casefolded\n"
			"directory: its nfdicf form.  A name the encoding cannot fold\n"
			"(invalid UTF-8) is hashed as raw bytes, as Linux does; e2fsprogs\n"
			"1.47 cannot hash such a name.  With --strict it is an error\n"
			"instead, as a strict file system refuses it.  --ignorables=keep\n"
			"gives the hashes Linux 6.12 and 6.13 computed.",
			cli_names_doc,
			" $ casefold hash --casefold 'README' 'readme'\n"
			" ede2a39c a0b0e277\n"
			" ede2a39c a0b0e277",
			"Exit status: 0 if every name was hashed, 1 if some yielded an\n"
			"error line, 2 for a usage error or unreadable input.",
			NULL,
		},
	},
};
