/* Reading and writing the convert journal (format in journal.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert/journal.h"

static int by_dir_old(const void *a, const void *b)
{
	const struct cli_rename *x = a, *y = b;
	int c = strcmp(x->dir, y->dir);

	return c ? c : strcmp(x->old, y->old);
}

static void put_hex(FILE *f, const char *s)
{
	putc('x', f);
	for (; *s; s++)
		fprintf(f, "%02x", (unsigned char)*s);
}

/* Decode "x<hex>" into a new string; NULL if malformed or out of memory. */
static char *get_hex(const char *field)
{
	size_t n = strlen(field);
	char *s;

	if (field[0] != 'x' || n % 2 == 0)
		return NULL;
	s = malloc(n / 2 + 1);
	if (!s)
		return NULL;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;

		if (sscanf(field + 1 + 2 * i, "%2x", &v) != 1 || v == 0) {
			free(s);
			return NULL;
		}
		s[i] = (char)v;
	}
	s[n / 2] = '\0';
	return s;
}

int cli_journal_create(struct cli_journal *j, int dirfd, const char *name)
{
	char tmp[300];
	FILE *f;
	int fd, err = 0;

	if (j->nrenames)
		qsort(j->renames, j->nrenames, sizeof(*j->renames), by_dir_old);
	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		return err;
	}
	fprintf(f, "casefold-convert 1\nrule %s %s\npolicy %s\nentries %" PRIu64 "\n", j->rule,
		j->keep_ignorables ? "keep" : "strip", j->rename ? "rename" : "abort", j->entries);
	for (size_t i = 0; i < j->nrenames; i++) {
		fputs("R ", f);
		put_hex(f, j->renames[i].dir);
		putc(' ', f);
		put_hex(f, j->renames[i].old);
		putc(' ', f);
		put_hex(f, j->renames[i].new);
		putc('\n', f);
	}
	fputs("plan\n", f);
	if (fflush(f) != 0 || fsync(fd) != 0)
		err = -errno;
	if (fclose(f) != 0 && !err)
		err = -errno;
	if (!err && renameat(dirfd, tmp, dirfd, name) < 0)
		err = -errno;
	if (!err && fsync(dirfd) < 0 && errno != EINVAL && errno != EBADF)
		err = -errno;
	if (err) {
		unlinkat(dirfd, tmp, 0);
		return err;
	}
	j->fd = openat(dirfd, name, O_WRONLY | O_APPEND | O_CLOEXEC);
	return j->fd < 0 ? -errno : 0;
}

static int push(struct cli_journal *j, const char *path, const char *temp,
		const struct timespec times[2])
{
	struct cli_pending *p;

	if (j->depth == j->cap) {
		size_t cap = j->cap ? 2 * j->cap : 16;

		p = realloc(j->stack, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		j->stack = p;
		j->cap = cap;
	}
	p = &j->stack[j->depth];
	p->path = strdup(path);
	p->temp = temp ? strdup(temp) : NULL;
	if (!p->path || (temp && !p->temp)) {
		free(p->path);
		free(p->temp);
		return -ENOMEM;
	}
	p->times[0] = times[0];
	p->times[1] = times[1];
	j->depth++;
	j->last_begin = temp != NULL;
	return 0;
}

static int pop(struct cli_journal *j, const char *path)
{
	struct cli_pending *p = cli_journal_pending(j, path);

	if (!p)
		return -EINVAL;
	/* Only the top can close; anything else means a damaged journal. */
	if (p != &j->stack[j->depth - 1])
		return -EINVAL;
	free(p->path);
	free(p->temp);
	j->depth--;
	j->last_begin = false;
	return 0;
}

/* One record, written whole and synced. */
static int append(struct cli_journal *j, const char *kind, const char *path, const char *temp,
		  const struct timespec *times)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ssize_t n;
	int err = 0;

	if (!f)
		return -ENOMEM;
	fprintf(f, "%s ", kind);
	put_hex(f, path);
	if (temp) {
		putc(' ', f);
		put_hex(f, temp);
	}
	if (times)
		fprintf(f, " %lld %ld %lld %ld", (long long)times[0].tv_sec, times[0].tv_nsec,
			(long long)times[1].tv_sec, times[1].tv_nsec);
	putc('\n', f);
	fclose(f);
	n = write(j->fd, buf, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	else if (fdatasync(j->fd) < 0 && errno != EINVAL)
		err = -errno;
	free(buf);
	return err;
}

int cli_journal_begin(struct cli_journal *j, const char *path, const char *temp,
		      const struct timespec times[2])
{
	int err = append(j, "B", path, temp, times);

	return err ? err : push(j, path, temp, times);
}

int cli_journal_keep(struct cli_journal *j, const char *path, const struct timespec times[2])
{
	int err = append(j, "K", path, NULL, times);

	return err ? err : push(j, path, NULL, times);
}

int cli_journal_done(struct cli_journal *j, const char *path)
{
	int err = append(j, "D", path, NULL, NULL);

	return err ? err : pop(j, path);
}

struct cli_pending *cli_journal_pending(struct cli_journal *j, const char *path)
{
	for (size_t i = j->depth; i-- > 0;)
		if (strcmp(j->stack[i].path, path) == 0)
			return &j->stack[i];
	return NULL;
}

const char *cli_journal_renamed(const struct cli_journal *j, const char *dir, const char *old)
{
	struct cli_rename key = { (char *)dir, (char *)old, NULL };
	const struct cli_rename *r;

	if (!j->nrenames)
		return NULL;
	r = bsearch(&key, j->renames, j->nrenames, sizeof(key), by_dir_old);
	return r ? r->new : NULL;
}

static int add_rename(struct cli_journal *j, char *dir, char *old, char *new)
{
	struct cli_rename *r;

	if (!dir || !old || !new)
		goto bad;
	r = realloc(j->renames, (j->nrenames + 1) * sizeof(*r));
	if (!r)
		goto bad;
	j->renames = r;
	r[j->nrenames++] = (struct cli_rename){ dir, old, new };
	return 0;
bad:
	free(dir);
	free(old);
	free(new);
	return -EINVAL;
}

/* Split line at spaces into at most max fields; returns how many. */
static size_t fields(char *line, char **f, size_t max)
{
	size_t n = 0;

	while (*line && n < max) {
		f[n++] = line;
		line += strcspn(line, " ");
		if (*line)
			*line++ = '\0';
	}
	return *line ? max + 1 : n;
}

static bool get_times(char **f, struct timespec t[2])
{
	char *end;

	for (int i = 0; i < 2; i++) {
		t[i].tv_sec = strtoll(f[2 * i], &end, 10);
		if (*end)
			return false;
		t[i].tv_nsec = strtol(f[2 * i + 1], &end, 10);
		if (*end)
			return false;
	}
	return true;
}

/* One record after the plan. */
static int replay(struct cli_journal *j, char *line)
{
	char *f[8], *path, *temp = NULL;
	size_t n = fields(line, f, 8);
	struct timespec t[2];
	int err = -EINVAL;

	if (n < 2 || !(path = get_hex(f[1])))
		return -EINVAL;
	if (strcmp(f[0], "D") == 0 && n == 2)
		err = pop(j, path);
	else if (strcmp(f[0], "B") == 0 && n == 7 && get_times(f + 3, t) &&
		 (temp = get_hex(f[2])) != NULL)
		err = push(j, path, temp, t);
	else if (strcmp(f[0], "K") == 0 && n == 6 && get_times(f + 2, t))
		err = push(j, path, NULL, t);
	free(path);
	free(temp);
	return err;
}

int cli_journal_load(struct cli_journal *j, int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDWR | O_APPEND | O_CLOEXEC);
	char *line = NULL, pol[16] = "", keep[16] = "", *f[4];
	size_t cap = 0;
	ssize_t n;
	off_t good;
	bool planned = false;
	int version = 0, err = 0;
	FILE *in;

	if (fd < 0)
		return -errno;
	j->fd = fd;
	in = fdopen(dup(fd), "r");
	if (!in)
		return -ENOMEM;
	if (fscanf(in, "casefold-convert %d\nrule %63s %15s\npolicy %15s\nentries %" SCNu64 "\n",
		   &version, j->rule, keep, pol, &j->entries) != 5 || version != 1)
		err = -EINVAL;
	j->keep_ignorables = strcmp(keep, "keep") == 0;
	j->rename = strcmp(pol, "rename") == 0;
	good = ftello(in);
	while (!err && (n = getline(&line, &cap, in)) > 0) {
		if (line[n - 1] != '\n')
			break; /* torn by a power loss: its step never started */
		good += n;
		line[n - 1] = '\0';
		if (!planned && strcmp(line, "plan") == 0)
			planned = true;
		else if (!planned && fields(line, f, 4) == 4 && strcmp(f[0], "R") == 0)
			err = add_rename(j, get_hex(f[1]), get_hex(f[2]), get_hex(f[3]));
		else if (planned)
			err = replay(j, line);
		else
			err = -EINVAL;
	}
	if (!planned)
		err = -EINVAL;
	/* Records appended later must not be glued to a torn one. */
	if (!err && ftruncate(fd, good) < 0)
		err = -errno;
	free(line);
	fclose(in);
	return err;
}

void cli_journal_free(struct cli_journal *j)
{
	for (size_t i = 0; i < j->nrenames; i++) {
		free(j->renames[i].dir);
		free(j->renames[i].old);
		free(j->renames[i].new);
	}
	while (j->depth) {
		j->depth--;
		free(j->stack[j->depth].path);
		free(j->stack[j->depth].temp);
	}
	free(j->renames);
	free(j->stack);
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
}
