/* The checks of mountcheck.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "main/mountcheck.h"

/* uid's name, or its number (getpwuid's buffer is reused: copied here). */
static void user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		snprintf(buf, len, "%s", pw->pw_name);
	else
		snprintf(buf, len, "uid %u", (unsigned)uid);
}

static int check_dev_fuse(void)
{
	struct stat st;
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno == ENOENT || errno == ENODEV || errno == ENXIO) {
		fprintf(stderr, "casefoldfs: cannot mount: there is no /dev/fuse; load the fuse "
			"module (as root: modprobe fuse), or start this container with the "
			"device\n");
	} else if ((errno == EACCES || errno == EPERM) && stat("/dev/fuse", &st) == 0) {
		char me[64], owner[64];

		user_name(geteuid(), me, sizeof(me));
		user_name(st.st_uid, owner, sizeof(owner));
		fprintf(stderr, "casefoldfs: cannot mount as %s: /dev/fuse is mode %o (owner "
			"%s), which %s cannot open; root can let every user mount with chmod "
			"0666 /dev/fuse (until the next boot) or, for good, the udev rule "
			"KERNEL==\"fuse\", MODE=\"0666\" (see casefoldfs(8))\n", me,
			(unsigned)(st.st_mode & 07777), owner, me);
	} else {
		fprintf(stderr, "casefoldfs: cannot mount: cannot open /dev/fuse: %s\n",
			strerror(errno));
	}
	return -1;
}

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

/*
 * The type and source of the topmost FUSE mount whose mount point is path,
 * from /proc/self/mountinfo ("ID PARENT MAJ:MIN ROOT POINT OPTIONS
 * [TAGS...] - TYPE SOURCE SUPEROPTIONS").
 */
static bool fuse_mounted_at(const char *path, char *type, char *source, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (!f)
		return false;
	while (getline(&line, &cap, f) > 0) {
		char *save, *point, *t, *src, *sep = strstr(line, " - ");

		if (!sep)
			continue;
		*sep = '\0';
		if (!strtok_r(line, " ", &save) || !strtok_r(NULL, " ", &save) ||
		    !strtok_r(NULL, " ", &save) || !strtok_r(NULL, " ", &save) ||
		    !(point = strtok_r(NULL, " ", &save)))
			continue;
		t = strtok_r(sep + 3, " ", &save);
		src = strtok_r(NULL, " ", &save);
		if (!t || !src || strncmp(t, "fuse", 4) != 0)
			continue;
		unescape(point);
		if (strcmp(point, path) != 0)
			continue;
		unescape(src);
		snprintf(type, len, "%s", t);
		snprintf(source, len, "%s", src);
		found = true;
	}
	free(line);
	fclose(f);
	return found;
}

static int check_not_mounted(const char *mountpoint)
{
	char *real = realpath(mountpoint, NULL), type[PATH_MAX], source[PATH_MAX];
	int r = 0;

	if (!real && errno == ENOTCONN) {
		fprintf(stderr, "casefoldfs: %s: a FUSE daemon that has ended is still mounted "
			"there; unmount it first (fusermount3 -u %s)\n", mountpoint, mountpoint);
		return -1;
	}
	if (!real) {
		fprintf(stderr, "casefoldfs: mount point %s: %s\n", mountpoint, strerror(errno));
		return -1;
	}
	if (fuse_mounted_at(real, type, source, sizeof(type))) {
		fprintf(stderr, "casefoldfs: %s is already mounted (%s, from %s); unmount it "
			"first (fusermount3 -u %s, or as root umount %s)\n", mountpoint, type, source,
			mountpoint, mountpoint);
		r = -1;
	}
	free(real);
	return r;
}

int mountcheck(const char *mountpoint)
{
	/* A descriptor already open on /dev/fuse, passed by a parent (libfuse's
	 * /dev/fd/N mount point): nothing to check here. */
	if (strncmp(mountpoint, "/dev/fd/", 8) == 0)
		return 0;
	if (check_not_mounted(mountpoint) < 0)
		return -1;
	return check_dev_fuse();
}
