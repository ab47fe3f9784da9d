/* ext4 info: the casefolding fields of a superblock, in text or JSON. */
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "ext4/ext4.h"
#include "ext4/sb.h"
#include "quote.h"

/* What the fields mean, worked out once for both output forms. */
struct info {
	struct cli_ext4_sb sb;
	int casefold;
	const char *encoding;   /* library name; NULL: none or unknown magic */
	const char *hash;       /* s_def_hash_version's name; NULL if unknown */
	const char *signedness; /* of the directory hash */
	char seed[37];
};

static void describe(struct info *in)
{
	cf_encoding enc;

	in->casefold = !!(in->sb.feature_incompat & CF_EXT4_FEATURE_INCOMPAT_CASEFOLD);
	in->encoding = in->sb.encoding &&
		       cf_ext4_encoding_load(&enc, in->sb.encoding, in->sb.encoding_flags) == 0 ?
		       cf_encoding_name(&enc) : NULL;
	in->hash = cli_ext4_hash_name(in->sb.def_hash_version);
	/* Neither flag: the kernel settles it from the host's char at the
	 * first read-write mount. */
	in->signedness = in->sb.flags & CF_EXT4_FLAGS_UNSIGNED_HASH ? "unsigned" :
			 in->sb.flags & CF_EXT4_FLAGS_SIGNED_HASH ? "signed" : "unset";
	cli_uuid_format(in->sb.hash_seed, in->seed);
}

static void print_flags(uint16_t fl)
{
	uint16_t unknown = fl & ~(CF_EXT4_ENC_STRICT_FL | CF_EXT4_ENC_NO_COMPAT_FALLBACK_FL);
	const char *sep = "";

	if (!fl)
		fputs("none", stdout);
	if (fl & CF_EXT4_ENC_STRICT_FL) {
		fputs("strict", stdout);
		sep = ", ";
	}
	if (fl & CF_EXT4_ENC_NO_COMPAT_FALLBACK_FL) {
		printf("%sno-compat-fallback", sep);
		sep = ", ";
	}
	if (unknown)
		printf("%sunknown 0x%x", sep, unknown);
	printf(" (0x%04x)\n", fl);
}

static void print_text(const struct info *in)
{
	printf("casefold:        %s\n", in->casefold ? "yes" : "no");
	if (in->encoding)
		printf("encoding:        %s (magic %u)\n", in->encoding, in->sb.encoding);
	else if (in->sb.encoding)
		printf("encoding:        unknown (magic %u): Linux refuses to mount\n",
		       in->sb.encoding);
	else
		printf("encoding:        none\n");
	fputs("encoding flags:  ", stdout);
	print_flags(in->sb.encoding_flags);
	printf("htree:           %s\n",
	       in->sb.feature_compat & CF_EXT4_FEATURE_COMPAT_DIR_INDEX ? "yes (dir_index)" : "no");
	if (in->hash)
		printf("hash:            %s, %s\n", in->hash, in->signedness);
	else
		printf("hash:            unknown (%u), %s\n", in->sb.def_hash_version,
		       in->signedness);
	printf("hash seed:       %s\n", in->seed);
}

static void print_json(const struct info *in)
{
	uint16_t fl = in->sb.encoding_flags;

	printf("{\"casefold\":%s,\"encoding\":", in->casefold ? "true" : "false");
	if (in->encoding)
		cli_quote_json(stdout, in->encoding, strlen(in->encoding));
	else
		fputs("null", stdout);
	printf(",\"encoding_magic\":%u,\"encoding_flags\":%u,\"strict\":%s,"
	       "\"no_compat_fallback\":%s,\"dir_index\":%s,\"hash\":",
	       in->sb.encoding, fl, fl & CF_EXT4_ENC_STRICT_FL ? "true" : "false",
	       fl & CF_EXT4_ENC_NO_COMPAT_FALLBACK_FL ? "true" : "false",
	       in->sb.feature_compat & CF_EXT4_FEATURE_COMPAT_DIR_INDEX ? "true" : "false");
	if (in->hash)
		printf("\"%s\"", in->hash);
	else
		fputs("null", stdout);
	printf(",\"hash_version\":%u,\"hash_signedness\":\"%s\",\"hash_seed\":\"%s\"}\n",
	       in->sb.def_hash_version, in->signedness, in->seed);
}

int cli_ext4_info(const struct cli_args *args, const char *path)
{
	struct info in;

	if (cli_ext4_sb_read(path, &in.sb) < 0)
		return CLI_EXIT_TROUBLE;
	describe(&in);
	if (args->json)
		print_json(&in);
	else
		print_text(&in);
	return CLI_EXIT_OK;
}
