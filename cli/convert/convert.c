/* The verb convert: make a non-empty directory tree casefolded, safely. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert/plan.h"
#include "convert/run.h"
#include "diag.h"
#include "quote.h"
#include "tree/dirlist.h"
#include "tree/dirmeta.h"
#include "tree/report.h"
#include "tree/walk.h"
#include "verb.h"

/* Where the directory's journal, replacement and probe live, in DIR/.. */
struct names {
	char journal[300], temp[300], probe[300];
};

static void make_names(struct names *n, const char *base)
{
	/* Room for the suffixes within NAME_MAX, cut at a character boundary. */
	int len = (int)strlen(base);

	while (len > 200 || (len > 0 && ((unsigned char)base[len] & 0xC0) == 0x80))
		len--;
	snprintf(n->journal, sizeof(n->journal), ".%.*s.casefold-journal", len, base);
	snprintf(n->temp, sizeof(n->temp), ".%.*s.casefold-new", len, base);
	snprintf(n->probe, sizeof(n->probe), ".%.*s.casefold-probe", len, base);
}

/* A name no UTF-8 filesystem in strict mode accepts. */
static const char invalid_name[] = "\xff";

/*
 * Removes the probe directory, and the invalid name a probe killed in its
 * middle may have left in it (then the directory is not empty).
 */
static void remove_probe(int top, const char *name)
{
	int fd = cli_open_dir(top, name, 0);

	if (fd >= 0) {
		unlinkat(fd, invalid_name, AT_REMOVEDIR);
		close(fd);
	}
	unlinkat(top, name, AT_REMOVEDIR);
}

/*
 * Can a directory beside ours be casefolded, and does the filesystem then
 * refuse invalid names?  Returns 1 strict, 0 not, or -errno.
 */
static int probe(int top, const char *name)
{
	int fd, err, strict;

	remove_probe(top, name);  /* a leftover of an interrupted run */
	if (mkdirat(top, name, 0700) < 0)
		return -errno;
	fd = cli_open_dir(top, name, 0);
	err = fd < 0 ? -errno : cli_set_casefold(fd);
	strict = !err && mkdirat(fd, invalid_name, 0700) < 0 && errno == EINVAL;
	if (!err && !strict)
		unlinkat(fd, invalid_name, AT_REMOVEDIR);
	if (fd >= 0)
		close(fd);
	unlinkat(top, name, AT_REMOVEDIR);
	return err ? err : strict;
}

static int unsupported(const char *dir, int err)
{
	cli_error("convert: %s: this filesystem cannot casefold directories (%s); ext4 and "
		  "f2fs need the casefold feature, tmpfs the casefold mount option, or use "
		  "casefoldfs; nothing was changed", dir, strerror(-err));
	return CLI_EXIT_TROUBLE;
}

/* A strict filesystem would refuse the invalid names the plan found. */
static int refuse_invalid(const struct cli_args *args, const struct cli_plan *p)
{
	for (size_t i = 0; i < p->invalid; i++) {
		fputs("invalid name: ", stdout);
		cli_quote_shell(stdout, p->invalid_paths[i], strlen(p->invalid_paths[i]));
		putchar('\n');
	}
	cli_error("convert: %s: the filesystem is strict and %llu names are not valid "
		  "%s; nothing was changed", args->operands[0],
		  (unsigned long long)p->invalid, cf_encoding_name(&args->enc));
	return CLI_EXIT_FAIL;
}

/* The plan, written once before anything changes.  Returns -1 to go on. */
static int write_journal(const struct cli_args *args, const struct cli_plan *p, int top,
			 const struct names *nm, struct cli_journal *j)
{
	int err;

	snprintf(j->rule, sizeof(j->rule), "%s", cf_encoding_name(&args->enc));
	j->keep_ignorables = args->enc.flags & CF_KEEP_IGNORABLES;
	j->rename = args->rename;
	j->entries = p->entries;
	if ((err = cli_journal_create(j, top, nm->journal)) < 0) {
		cli_error("convert: writing the journal %s: %s", nm->journal, strerror(-err));
		return CLI_EXIT_TROUBLE;
	}
	return -1;
}

/*
 * What a finished plan allows: an exit status, or -1 to go on.  strict is
 * what the probe found (1 or 0; not probed with --dry-run).
 */
static int decide(const struct cli_args *args, const struct cli_plan *p, int top,
		  const struct names *nm, struct cli_journal *j, int strict)
{
	if (p->unsupported)
		return unsupported(args->operands[0], p->unsupported);
	if (p->errors) {
		cli_error("convert: %s: nothing was changed", args->operands[0]);
		return CLI_EXIT_TROUBLE;
	}
	if (p->collisions && !args->rename) {
		cli_error("convert: %s: %llu sets of names would collide; nothing was changed "
			  "(--on-collision=rename renames them)", args->operands[0],
			  (unsigned long long)p->collisions);
		return CLI_EXIT_FAIL;
	}
	if (args->dry_run) {
		printf("would convert %llu of %llu directories, moving %llu entries, renaming %zu\n",
		       (unsigned long long)p->convert, (unsigned long long)p->directories,
		       (unsigned long long)p->entries, j->nrenames);
		return CLI_EXIT_OK;
	}
	if (strict && p->invalid)
		return refuse_invalid(args, p);
	return write_journal(args, p, top, nm, j);
}

/* The read-only first pass.  Returns an exit status, or -1 to go on. */
static int plan(const struct cli_args *args, const char *real, int top, const struct names *nm,
		struct cli_journal *j, int strict)
{
	struct cli_rules rules;
	struct cli_audit_report report;
	struct cli_plan p = { 0 };
	int status;

	cli_rules_init(&rules, &args->enc);
	report = (struct cli_audit_report){ .f = stdout, .format = CLI_HUMAN, .rules = &rules };
	p = (struct cli_plan){ .rules = &rules, .root = real, .rename = args->rename,
			       .report = &report, .out = stdout, .j = j };
	if (cli_plan_tree(&p) < 0) {
		cli_error("convert: out of memory");
		status = CLI_EXIT_TROUBLE;
	} else {
		status = decide(args, &p, top, nm, j, strict);
	}
	cli_plan_free(&p);
	return status;
}

/* A journal from an interrupted run: same options, or refuse. */
static int resumable(const struct cli_args *args, const struct cli_journal *j, const char *jname)
{
	bool keep = args->enc.flags & CF_KEEP_IGNORABLES;

	if (strcmp(j->rule, cf_encoding_name(&args->enc)) != 0 || j->keep_ignorables != keep ||
	    j->rename != args->rename) {
		cli_error("convert: %s: an interrupted conversion (journal %s) used "
			  "--encoding=%s --ignorables=%s --on-collision=%s: rerun it with these",
			  args->operands[0], jname, j->rule, j->keep_ignorables ? "keep" : "strip",
			  j->rename ? "rename" : "abort");
		return CLI_EXIT_TROUBLE;
	}
	if (args->dry_run) {
		printf("an interrupted conversion of %s is in progress (journal %s); "
		       "run without --dry-run to finish it\n", args->operands[0], jname);
		return CLI_EXIT_OK;
	}
	return -1;
}

/* DIR as realpath(3) gives it, cut at its last slash into its parent, where
 * the work happens, and its name there. */
struct target {
	char *real;  /* allocated: "PARENT\0NAME" while cut */
	char *slash; /* the cut */
};

/* Resolve and cut DIR, then open its parent as c->top and name the files
 * kept beside it.  Returns -1 to go on, or an exit status. */
static int locate(const char *dir, struct target *t, struct cli_convert *c, struct names *nm)
{
	const char *parent;

	if (!(t->real = realpath(dir, NULL))) {
		cli_error("convert: %s: %s", dir, strerror(errno));
		return CLI_EXIT_TROUBLE;
	}
	t->slash = strrchr(t->real, '/');
	if (t->slash == t->real && !t->slash[1])
		return cli_usage("convert", "the root directory has no parent to work in");
	parent = t->slash == t->real ? "/" : t->real;
	*t->slash = '\0';
	c->base = t->slash + 1;
	make_names(nm, c->base);
	c->root_temp = nm->temp;
	c->top = cli_open_dir(AT_FDCWD, parent, 0);
	if (c->top < 0) {
		cli_error("convert: %s: %s", parent, strerror(errno));
		return CLI_EXIT_TROUBLE;
	}
	return -1;
}

/*
 * Resume the conversion an interrupted run journaled, or plan a new one
 * (refusing a mount point, which has no "beside").  Returns -1 to go on to
 * the conversion, or an exit status.
 */
static int prepare(const struct cli_args *args, const struct target *t,
		   const struct cli_convert *c, const struct names *nm, struct cli_journal *j)
{
	const char *dir = args->operands[0];
	struct statx stx;
	int status, strict = 0, err = cli_journal_load(j, c->top, nm->journal);

	if (err == 0) {
		status = resumable(args, j, nm->journal);
		if (status < 0 && !args->dry_run)
			fprintf(stderr, "casefold: convert: resuming the interrupted conversion of %s\n",
				dir);
		return status;
	}
	if (err != -ENOENT) {
		cli_error("convert: %s: the journal %s is damaged (%s); nothing was done",
			  dir, nm->journal, strerror(-err));
		return CLI_EXIT_TROUBLE;
	}
	if (statx(c->top, c->base, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &stx) == 0 &&
	    stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT &&
	    stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) {
		cli_error("convert: %s is a mount point: its replacement cannot be made beside "
			  "it; convert its subdirectories, or remount", dir);
		return CLI_EXIT_TROUBLE;
	}
	/*
	 * The work happens beside DIR, and the filesystem must casefold: both
	 * found before the plan is printed, not after.  A read-only parent would
	 * fail the probe too, but is not the filesystem's fault.
	 */
	if (faccessat(c->top, ".", W_OK | X_OK, AT_EACCESS) < 0) {
		cli_error("convert: %s: its parent %s is not writable (%s): convert makes the "
			  "replacement and the journal beside it; nothing was changed", dir,
			  *t->real ? t->real : "/", strerror(errno));
		return CLI_EXIT_TROUBLE;
	}
	if (!args->dry_run && (strict = probe(c->top, nm->probe)) < 0)
		return unsupported(dir, strict);
	/* realpath cut in two: put it back together for the walk. */
	*t->slash = '/';
	status = plan(args, t->real, c->top, nm, j, strict);
	*t->slash = '\0';
	return status;
}

/* The second pass, and the journal removed once it is done. */
static int execute(struct cli_convert *c, const struct cli_journal *j, const char *jname)
{
	const char *crash = getenv("CASEFOLD_CONVERT_CRASH_AFTER");

	c->crash_after = crash ? strtoul(crash, NULL, 10) : 0;
	cli_progress_init(&c->progress, j->entries);
	fflush(stdout);
	if (cli_convert_run(c) < 0) {
		cli_error("convert: %s: interrupted; run the same command again to finish",
			  c->shown);
		return CLI_EXIT_TROUBLE;
	}
	unlinkat(c->top, jname, 0);
	fsync(c->top);
	printf("converted %s: %llu directories replaced, %llu entries moved, %zu renamed\n",
	       c->shown, (unsigned long long)c->converted, (unsigned long long)c->moved,
	       j->nrenames);
	return CLI_EXIT_OK;
}

static int run_convert(const struct cli_args *args)
{
	const char *dir = args->operands[0];
	struct cli_journal j = { .fd = -1 };
	struct cli_convert c = { .shown = dir, .j = &j };
	struct target t = { 0 };
	struct names nm;
	int status = locate(dir, &t, &c, &nm);

	if (status >= 0) {
		free(t.real);
		return status;
	}
	cli_walk_raise_fd_limit();
	status = prepare(args, &t, &c, &nm, &j);
	if (status < 0)
		status = execute(&c, &j, nm.journal);
	cli_journal_free(&j);
	close(c.top);
	free(t.real);
	return status;
}

const struct cli_verb cli_verb_convert = {
	.name = "convert",
	.options = CLI_OPT_ENCODING | CLI_OPT_IGNORABLES | CLI_OPT_ON_COLLISION | CLI_OPT_DRY_RUN,
	.min_operands = 1,
	.max_operands = 1,
	.run = run_convert,
	.doc = {
		.operands = "DIR",
		.summary = "make a directory tree casefolded, files and all",
		.text = (const char *const[]){
			"Make DIR and every directory below it case-insensitive\n"
			"(chattr +F), although they are not empty, on casefoldfs or on a\n"
			"kernel filesystem that supports the flag (ext4 and f2fs with\n"
			"the casefold feature, tmpfs mounted with casefold).  Choose the\n"
			"filesystem's rule with --encoding and --ignorables.",
			"First the tree is read and the names that would collide are\n"
			"found, as audit does.  With --on-collision=abort (the default)\n"
			"they are listed and nothing is changed.  With rename, in each\n"
			"set the name first in byte order keeps its name and the others\n"
			"get the suffix ~0, or ~1, ... (the first that is free, as e2fsck\n"
			"does; the name is shortened at a character boundary to stay\n"
			"within 255 bytes); every rename is printed.  On a strict\n"
			"filesystem, names that are not valid UTF-8 stop the conversion.",
			"Each directory is replaced by a casefolded one: a new directory\n"
			"beside it receives its extended attributes, every entry by\n"
			"rename(2), then its owner, mode and times; the two are swapped\n"
			"with renameat2(RENAME_EXCHANGE) and the empty old one removed.\n"
			"Files are never copied: hard links, symlinks, special files, open\n"
			"files, owners, modes, times and extended attributes stay as they\n"
			"are.  Nothing is followed or crossed: a mount point inside DIR\n"
			"stops the conversion before it starts.",
			"The work is journaled in DIR/../.DIR.casefold-journal (so DIR/..\n"
			"must be writable): if the command is interrupted, even by\n"
			"kill -9 or a crash, every file is in exactly one place, and\n"
			"running the same command again finishes the job.  --dry-run\n"
			"prints the plan and changes nothing.",
			" $ casefold convert --on-collision=rename wineprefix\n"
			" rename wineprefix/drive_c/Foo -> 'Foo~0'\n"
			" converted wineprefix: 812 directories replaced, 10530 entries\n"
			" moved, 1 renamed",
			"Exit status: 0 when converted (or, with --dry-run, convertible),\n"
			"1 when names collide or are invalid and nothing was changed, 2\n"
			"for errors: an unsupported filesystem, an unreadable tree, an\n"
			"interrupted conversion (run it again), a usage error.",
			NULL,
		},
	},
};
