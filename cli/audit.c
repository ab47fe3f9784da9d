/* The verb audit: what would collide if these trees were casefolded? */
#include <errno.h>

#include "diag.h"
#include "tree/merged.h"
#include "tree/report.h"
#include "tree/walk.h"
#include "verb.h"

struct audit {
	struct cli_rules rules;
	struct cli_audit_report report;
	const char *dir; /* the directory being visited */
	int dirfd;
	const struct cli_dirlist *list;
};

/* A collision of entries of directories that merge (Icons/a, icons/A). */
static int found_merged(void *ctx, const struct cli_dirlist *m, const struct cli_finding *f)
{
	struct audit *a = ctx;

	cli_audit_finding(&a->report, a->dir, m, f);
	return 0;
}

static int found(void *ctx, const struct cli_finding *f)
{
	struct audit *a = ctx;

	cli_audit_finding(&a->report, a->dir, a->list, f);
	if (f->kind != CLI_COLLISION)
		return 0;
	return cli_merged_collisions(&a->rules, a->dirfd, a->list, f, found_merged, a);
}

static int visit(void *ctx, const char *path, int dirfd, const struct cli_dirlist *l)
{
	struct audit *a = ctx;

	a->dirfd = dirfd;
	a->dir = path;
	a->list = l;
	return cli_findings(&a->rules, l, CLI_FIND_ALL, found, a);
}

static void walk_error(void *ctx, const char *path, int err)
{
	struct audit *a = ctx;

	cli_audit_error(&a->report, path, err);
}

static int run_audit(const struct cli_args *args)
{
	struct cli_progress progress;
	struct audit a = { 0 };
	struct cli_walk w = {
		.follow = args->follow, .cross_mounts = args->cross_mounts,
		.visit = visit, .error = walk_error, .ctx = &a, .progress = &progress,
	};
	int err = 0;

	if (args->json && args->nul)
		return cli_usage("audit", "--json and -0 are two formats: choose one");
	cli_rules_init(&a.rules, &args->enc);
	cli_progress_init(&progress, 0);
	a.report = (struct cli_audit_report){
		.f = stdout, .rules = &a.rules, .progress = &progress,
		.format = args->json ? CLI_JSON : args->nul ? CLI_RECORDS : CLI_HUMAN,
	};
	cli_walk_raise_fd_limit();
	cli_audit_begin(&a.report);
	for (int i = 0; i < args->noperands && !err && !ferror(stdout); i++) {
		err = cli_walk(&w, args->operands[i]);
		/* An unreadable operand is reported; the others are still audited. */
		if (err != -ENOMEM)
			err = 0;
	}
	if (err == -ENOMEM)
		cli_audit_error(&a.report, "audit", err);
	cli_audit_end(&a.report, w.directories, w.entries);
	if (a.report.errors)
		return CLI_EXIT_TROUBLE;
	return a.report.count[CLI_COLLISION] + a.report.count[CLI_IGNORABLE] +
	       a.report.count[CLI_INVALID] ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_verb cli_verb_audit = {
	.name = "audit",
	.options = CLI_OPT_ENCODING | CLI_OPT_IGNORABLES | CLI_OPT_JSON | CLI_OPT_NUL_RECORDS |
		   CLI_OPT_FOLLOW | CLI_OPT_CROSS_MOUNTS,
	.min_operands = 1,
	.max_operands = -1,
	.run = run_audit,
	.doc = {
		.operands = "PATH...",
		.summary = "find names that would collide in casefolded directories",
		.text = (const char *const[]){
			"Walk each PATH and report, for every directory, the sets of\n"
			"names that would be one file if the directory were casefolded\n"
			"(equal nfdicf forms: Makefile and makefile, U+00C5 and\n"
			"A U+030A, Straße and STRASSE), the sets of names that differ only\n"
			"by invisible Default_Ignorable code points (.git and .g<ZWJ>it:\n"
			"equal with them stripped, different with them kept, a spoofing\n"
			"risk even without casefolding), and the names that are not valid\n"
			"for the encoding (a strict filesystem refuses them).  Directories\n"
			"whose names collide become one once casefolded (tar x or rsync\n"
			"into the tree merges them): the names that would then collide\n"
			"are reported too, as paths (Icons/app.ico icons/App.ico).\n"
			"Nothing is modified, not even access times where the kernel\n"
			"allows.",
			"Symbolic links are not followed and mount points not entered\n"
			"unless asked.  Directories are reported in bytewise order of\n"
			"their names, so two runs over the same tree print the same\n"
			"report.  Memory grows with the largest directory, not with the\n"
			"tree.  On a terminal, standard error shows the progress.",
			"Names are shown quoted for a shell, with invisible characters\n"
			"and bytes that are not UTF-8 escaped ($'.g\\u200dit'); in a set\n"
			"with canonically equivalent spellings, which a terminal shows\n"
			"alike (NFC and NFD), every character beyond ASCII is escaped\n"
			"($'caf\\u00e9' $'cafe\\u0301').  --json writes one document:\n"
			"{\"findings\": [{\"kind\", \"dir\", \"names\", \"dir_hex\",\n"
			"\"names_hex\"}...], \"summary\": {...}}, kinds collision,\n"
			"ignorable, invalid and error; the _hex fields hold the exact\n"
			"bytes.  -0 writes each finding as its kind, then the path\n"
			"of each name, each ended by NUL, and an empty field to end it.",
			" $ casefold audit src\n"
			" src/include: names that collide: Makefile makefile\n"
			" 12 directories, 340 entries: 1 collision sets, ...",
			"Exit status: 0 if nothing was found, 1 if something was, 2 if\n"
			"some directory could not be read or for a usage error.",
			NULL,
		},
	},
};
