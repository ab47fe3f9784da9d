/*
 * The superblock record: what ext4 keeps in s_encoding/s_encoding_flags,
 * kept in the hidden file .casefoldfs at the root of the backing tree.  The
 * fold function is an on-disk format, so a tree is always mounted with the
 * encoding and flags it was created with; an option that contradicts the
 * record, or a record this build cannot honour, fails the mount.
 *
 * Format (version 2): UTF-8 text, lines ending in '\n', at most 4 KiB.
 *
 *   casefoldfs 2                       magic word and format version
 *   encoding utf8-12.1.0               canonical name (cf_encoding_name), or
 *                                      "none": the flag cannot be set
 *   flags strict_encoding keep_ignorables normalize_all
 *                                      any subset, space separated; the
 *                                      line may list none but must exist
 *   flagstore user                     where directories' casefold flags
 *                                      live: "trusted" or "user" xattrs
 *                                      (flagstore.c)
 *
 * Version 1 is the same without the flagstore line, and means "trusted":
 * it is read, never written.  Lines are in this order; anything else is an
 * error, never ignored.  The
 * file is written once, by the first mount, through a temporary file
 * (.casefoldfs.tmp) renamed into place.  Both names are hidden at the root
 * of the mount: absent from readdir, ENOENT on lookup, EPERM on create.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "casefold.h"
#include "tree/super.h"

#define SUPER_VERSION 2
#define SUPER_MAX 4096
#define DEFAULT_ENCODING "utf8-12.1.0"

/*
 * The superblock's own names, which the root of the mount hides: under the
 * root's rule, so that a +F root also hides (and refuses to create) every
 * name equal to them, such as .CASEFOLDFS — else a user could make a pair
 * that the backing tree's other readers see as fold-equal to our record.
 */
bool super_reserved(const struct cfs_names *nm, enum cfs_rule rule, const char *name)
{
	size_t len = strlen(name);

	return names_match(nm, rule, name, len, CFS_SUPER_NAME, strlen(CFS_SUPER_NAME)) ||
	       names_match(nm, rule, name, len, CFS_SUPER_TMP, strlen(CFS_SUPER_TMP));
}

/* Replaces name (a 32-byte buffer) by its canonical form; "none" stays. */
static int canonicalize(char name[32])
{
	cf_encoding enc;

	if (strcmp(name, "none") == 0)
		return 0;
	if (cf_encoding_load(&enc, name, 0) < 0)
		return -ENOENT;
	snprintf(name, 32, "%s", cf_encoding_name(&enc));
	return 0;
}

static int format(const struct cfs_options *o, char *buf, size_t len)
{
	return snprintf(buf, len, "casefoldfs %d\nencoding %s\nflags%s%s%s\nflagstore %s\n",
			SUPER_VERSION, o->encoding,
			o->strict ? " strict_encoding" : "",
			o->keep_ignorables ? " keep_ignorables" : "",
			o->normalize_all ? " normalize_all" : "",
			flagstore_name(o->store));
}

static int write_record(int rootfd, const struct cfs_options *o)
{
	char buf[256];
	int n = format(o, buf, sizeof(buf)), fd, err = 0;

	/* O_EXCL on a fresh name: never write through a planted link. */
	if (unlinkat(rootfd, CFS_SUPER_TMP, 0) < 0 && errno != ENOENT)
		return -errno;
	fd = openat(rootfd, CFS_SUPER_TMP, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0644);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, (size_t)n) != n || fsync(fd) < 0)
		err = errno ? -errno : -EIO;
	close(fd);
	if (err == 0 && renameat(rootfd, CFS_SUPER_TMP, rootfd, CFS_SUPER_NAME) < 0)
		err = -errno;
	if (err < 0)
		unlinkat(rootfd, CFS_SUPER_TMP, 0);
	return err;
}

/* Splits off the next line of *p (NUL-terminating it), or NULL at the end. */
static char *next_line(char **p)
{
	char *line = *p, *nl;

	if (!line || !*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = NULL;
	}
	return line;
}

static int parse_flags(char *words, struct cfs_options *o, char *err, size_t errlen)
{
	char *save, *w;

	for (w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (strcmp(w, "strict_encoding") == 0)
			o->strict = true;
		else if (strcmp(w, "keep_ignorables") == 0)
			o->keep_ignorables = true;
		else if (strcmp(w, "normalize_all") == 0)
			o->normalize_all = true;
		else {
			snprintf(err, errlen, "unknown flag \"%s\"", w);
			return -EINVAL;
		}
	}
	return 0;
}

static int parse_record(char *text, struct cfs_options *o, char *err, size_t errlen)
{
	char *p = text, *line;
	int version;

	memset(o, 0, sizeof(*o));
	line = next_line(&p);
	if (!line || sscanf(line, "casefoldfs %d", &version) != 1) {
		snprintf(err, errlen, "not a casefoldfs superblock");
		return -EINVAL;
	}
	if (version != 1 && version != SUPER_VERSION) {
		snprintf(err, errlen, "superblock version %d is not supported (this build: 1 to %d)",
			 version, SUPER_VERSION);
		return -EINVAL;
	}
	line = next_line(&p);
	if (!line || strncmp(line, "encoding ", 9) != 0 || strlen(line + 9) >= 32) {
		snprintf(err, errlen, "malformed encoding line");
		return -EINVAL;
	}
	strcpy(o->encoding, line + 9);
	line = next_line(&p);
	if (!line || strncmp(line, "flags", 5) != 0 || (line[5] && line[5] != ' ')) {
		snprintf(err, errlen, "malformed flags line");
		return -EINVAL;
	}
	if (parse_flags(line + 5, o, err, errlen) < 0)
		return -EINVAL;
	/* Version 1 trees were all made by root, with trusted.* flags. */
	o->store = CFS_STORE_TRUSTED;
	if (version > 1) {
		line = next_line(&p);
		if (!line || strncmp(line, "flagstore ", 10) != 0 ||
		    flagstore_parse(line + 10, &o->store) < 0) {
			snprintf(err, errlen, "malformed flagstore line");
			return -EINVAL;
		}
	}
	if (next_line(&p)) {
		snprintf(err, errlen, "unexpected data after the %s line",
			 version > 1 ? "flagstore" : "flags");
		return -EINVAL;
	}
	return 0;
}

/* 1 and the record in o, 0 if there is none, or -errno with a message. */
static int read_record(int rootfd, struct cfs_options *o, char *err, size_t errlen)
{
	char text[SUPER_MAX + 1];
	ssize_t n;
	int fd;

	fd = openat(rootfd, CFS_SUPER_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", CFS_SUPER_NAME, strerror(errno));
		return -errno;
	}
	n = read(fd, text, SUPER_MAX + 1);
	close(fd);
	if (n < 0 || n > SUPER_MAX) {
		snprintf(err, errlen, "cannot read %s", CFS_SUPER_NAME);
		return -EIO;
	}
	text[n] = '\0';
	if (parse_record(text, o, err, errlen) < 0)
		return -EINVAL;
	return 1;
}

static int check_against(const struct cfs_options *rec, const struct cfs_options *given,
			 bool given_encoding, bool given_store, char *err, size_t errlen)
{
	const char *what = NULL;

	if (given_store && given->store != rec->store) {
		snprintf(err, errlen, "option flagstore=%s contradicts the superblock (flagstore "
			 "%s); mount without it", flagstore_name(given->store),
			 flagstore_name(rec->store));
		return -EINVAL;
	}
	if (given_encoding && strcmp(given->encoding, rec->encoding) != 0)
		what = "casefold";
	else if (given->strict && !rec->strict)
		what = "strict_encoding";
	else if (given->keep_ignorables && !rec->keep_ignorables)
		what = "keep_ignorables";
	else if (given->normalize_all && !rec->normalize_all)
		what = "normalize_all";
	if (!what)
		return 0;
	snprintf(err, errlen,
		 "option %s contradicts the superblock (encoding %s, flags:%s%s%s); "
		 "mount without it",
		 what, rec->encoding, rec->strict ? " strict_encoding" : "",
		 rec->keep_ignorables ? " keep_ignorables" : "",
		 rec->normalize_all ? " normalize_all" : "");
	return -EINVAL;
}

/*
 * Settles the options of this mount: those recorded in the backing tree, or
 * for a new tree the given ones (recorded now).  given_encoding and
 * given_store tell whether -o casefold= and -o flagstore= were given
 * (given->store is otherwise the store a new tree gets).  On error, err
 * holds a message.
 */
int super_load(int rootfd, struct cfs_options *opt, const struct cfs_options *given,
	       bool given_encoding, bool given_store, char *err, size_t errlen)
{
	struct cfs_options want = *given;
	int r;

	if (!given_encoding)
		strcpy(want.encoding, DEFAULT_ENCODING);
	if (canonicalize(want.encoding) < 0) {
		snprintf(err, errlen, "unknown encoding \"%s\"", want.encoding);
		return -ENOENT;
	}
	r = read_record(rootfd, opt, err, errlen);
	if (r < 0)
		return r;
	if (r == 0) {
		if (strcmp(want.encoding, "none") == 0 &&
		    (want.strict || want.keep_ignorables || want.normalize_all)) {
			snprintf(err, errlen, "encoding flags need an encoding");
			return -EINVAL;
		}
		*opt = want;
		r = write_record(rootfd, opt);
		if (r < 0)
			snprintf(err, errlen, "cannot write %s: %s", CFS_SUPER_NAME, strerror(-r));
		return r;
	}
	if (canonicalize(opt->encoding) < 0) {
		snprintf(err, errlen, "the superblock names encoding \"%s\", which this build "
			 "does not support", opt->encoding);
		return -ENOENT;
	}
	return check_against(opt, &want, given_encoding, given_store, err, errlen);
}
