/*
 * probe: one system call per run, for transcripts that must read the same
 * under the real kernel (a static binary inside a busybox VM) and on
 * casefoldfs.  Names take \xHH escapes.  Prints "OK", "OK <detail>" or
 * "ERR <ERRNO NAME>"; always exits 0 so a scenario runs to its end.
 *
 *   probe create|open|stat|mkdir|rmdir|unlink|fifo PATH
 *   probe rename|link|symlink A B
 *   probe ls DIR                  sorted names, escaped
 *   probe getflags PATH           casefold=0|1
 *   probe setflags PATH +F|-F
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define CASEFOLD_FL 0x40000000

static const struct { int err; const char *name; } errnames[] = {
	{ EEXIST, "EEXIST" }, { ENOENT, "ENOENT" }, { EINVAL, "EINVAL" },
	{ ENOTEMPTY, "ENOTEMPTY" }, { EOPNOTSUPP, "EOPNOTSUPP" },
	{ ENAMETOOLONG, "ENAMETOOLONG" }, { EISDIR, "EISDIR" }, { ENOTDIR, "ENOTDIR" },
	{ EPERM, "EPERM" }, { EACCES, "EACCES" }, { ELOOP, "ELOOP" }, { EXDEV, "EXDEV" },
	{ EBUSY, "EBUSY" }, { ENOTTY, "ENOTTY" },
};

static int report(int r)
{
	if (r >= 0) {
		puts("OK");
		return 0;
	}
	for (size_t i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (errnames[i].err == errno) {
			printf("ERR %s\n", errnames[i].name);
			return 0;
		}
	printf("ERR %d\n", errno);
	return 0;
}

/* Decodes \xHH escapes in place. */
static char *unescape(char *s)
{
	char *w = s;

	for (const char *r = s; *r; ) {
		unsigned v;

		if (r[0] == '\\' && r[1] == 'x' && sscanf(r + 2, "%2x", &v) == 1) {
			*w++ = (char)v;
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return s;
}

static void put_escaped(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x21 || *p > 0x7e || *p == '\\')
			printf("\\x%02x", *p);
		else
			putchar(*p);
	putchar('\n');
}

static int byname(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list(const char *dir)
{
	char **names = NULL;
	size_t n = 0;
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return report(-1);
	while ((d = readdir(dp)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n++] = strdup(d->d_name);
	}
	closedir(dp);
	qsort(names, n, sizeof(*names), byname);
	for (size_t i = 0; i < n; i++) {
		printf("  ");
		put_escaped(names[i]);
		free(names[i]);
	}
	free(names);
	return report(0);
}

static int flags(const char *path, const char *set)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK), v = 0, r;

	if (fd < 0)
		return report(-1);
	r = ioctl(fd, FS_IOC_GETFLAGS, &v);
	if (r == 0 && set) {
		v = set[0] == '+' ? v | CASEFOLD_FL : v & ~CASEFOLD_FL;
		r = ioctl(fd, FS_IOC_SETFLAGS, &v);
	}
	close(fd);
	if (r == 0 && !set) {
		printf("OK casefold=%d\n", !!(v & CASEFOLD_FL));
		return 0;
	}
	return report(r);
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	char *a = argc > 2 ? unescape(argv[2]) : NULL;
	char *b = argc > 3 ? unescape(argv[3]) : NULL;
	struct stat st;
	int fd;

	if (!a) {
		fprintf(stderr, "usage: see probe.c\n");
		return 2;
	}
	if (strcmp(op, "create") == 0 || strcmp(op, "open") == 0) {
		fd = open(a, O_CREAT | O_WRONLY | (op[0] == 'c' ? O_EXCL : 0), 0644);
		if (fd >= 0)
			close(fd);
		return report(fd);
	}
	if (strcmp(op, "stat") == 0)
		return report(lstat(a, &st));
	if (strcmp(op, "mkdir") == 0)
		return report(mkdir(a, 0755));
	if (strcmp(op, "rmdir") == 0)
		return report(rmdir(a));
	if (strcmp(op, "unlink") == 0)
		return report(unlink(a));
	if (strcmp(op, "fifo") == 0)
		return report(mkfifo(a, 0644));
	if (strcmp(op, "ls") == 0)
		return list(a);
	if (strcmp(op, "getflags") == 0)
		return flags(a, NULL);
	if (strcmp(op, "setflags") == 0 && b)
		return flags(a, b);
	if (strcmp(op, "rename") == 0 && b)
		return report(rename(a, b));
	if (strcmp(op, "link") == 0 && b)
		return report(link(a, b));
	if (strcmp(op, "symlink") == 0 && b)
		return report(symlink(a, b));
	fprintf(stderr, "probe: unknown operation %s\n", op);
	return 2;
}
