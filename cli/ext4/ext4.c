/* The verb ext4: what an ext4 image says about casefolding (info), and
 * whether its casefolded directories are sound (audit). */
#include <string.h>

#include "diag.h"
#include "ext4/ext4.h"
#include "verb.h"

static int run_ext4(const struct cli_args *args)
{
	const char *action = args->operands[0], *path = args->operands[1];

	if (strcmp(action, "info") == 0)
		return cli_ext4_info(args, path);
	if (strcmp(action, "audit") == 0)
		return cli_ext4_audit(args, path);
	return cli_usage("ext4", "unknown action '%s': 'info' or 'audit'", action);
}

const struct cli_verb cli_verb_ext4 = {
	.name = "ext4",
	.options = CLI_OPT_JSON,
	.min_operands = 2,
	.max_operands = 2,
	.run = run_ext4,
	.doc = {
		.operands = "info|audit IMAGE|DEVICE",
		.summary = "inspect and audit the casefolding of an ext4 image",
		.text = (const char *const[]){
			"info prints what the superblock records for casefolding: the\n"
			"casefold feature, the encoding and its flags (strict: invalid\n"
			"names are refused; no-compat-fallback: when a hashed lookup\n"
			"fails, Linux 6.14 and later skip their linear search),\n"
			"and the directory hash algorithm, signedness and seed to give\n"
			"to 'casefold hash'.  It reads the superblock only.",
			"audit reads every casefolded directory and reports names that\n"
			"are invalid UTF-8 (a problem on a strict file system, where the\n"
			"kernel cannot look them up; a note otherwise), groups of names\n"
			"that fold equal (the kernel reaches only one of them), and in\n"
			"indexed (htree) directories names stored in a block their hash\n"
			"does not lead to, saying whether they fit the other treatment\n"
			"of ignorable code points (Linux 6.12 and 6.13 kept them).  A\n"
			"progress line is shown on a terminal.",
			"Both only read: the image is opened read-only and never\n"
			"written, and may be mounted meanwhile (the result is then a\n"
			"snapshot at best).",
			" $ casefold ext4 info disk.img\n"
			" casefold:        yes\n"
			" encoding:        utf8-12.1.0 (magic 1)\n"
			" encoding flags:  strict (0x0001)\n"
			" htree:           yes (dir_index)\n"
			" hash:            half_md4, signed\n"
			" hash seed:       a4c8f787-530b-4f01-a053-993921839eb7",
			"Exit status: 0 on success (audit: nothing found), 1 when audit\n"
			"found problems, 2 for an unreadable, truncated or corrupt image\n"
			"or a usage error.",
			NULL,
		},
	},
};
