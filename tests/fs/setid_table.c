/*
 * The set-ID table's driver (tests/fs/setid_table.sh): every mode, every
 * operation, every actor, with the bits set before the file is seen
 * ("mount") or behind an open file's back ("behind"), in one directory;
 * one line per case:
 *
 *   MODE OP ACTOR WHERE RESULT MODE_AFTER
 *
 * RESULT is OK or the errno's name; MODE_AFTER is what the backing
 * directory holds afterwards (octal).  Run the same on a real ext4
 * directory and through a mount, and the two outputs must be equal.
 *
 *   setid_table [-u] [-s] [-c] DIR BACKDIR
 *
 * DIR is where the actors act (a mount, or ext4 itself); BACKDIR the same
 * directory as the backing filesystem has it (DIR itself for ext4): files
 * are made there and "behind" changes are made there.  The setup's chown
 * and chmod go through DIR unless -s (a user's mount, where root cannot
 * act); -c makes the files through DIR too (an overlay view, which sees
 * no file made behind it).  -u: a user's mount of uid 65534 (only that
 * uid may use it): every actor is uid 65534, and its role comes from the
 * file instead — its own for "owner", root's for "member" (in the file's
 * group) and "other".
 *
 * With -s every file is made before the first actor reaches DIR, and so
 * before the daemon watches it (from its first lookup): no change notice
 * of the setup's can come late.  One that did, its invalidation arriving
 * while the kernel makes the inode of the file's first lookup, would
 * leave that inode without the lookup's attributes (mode 0, root's),
 * which the kernel's own checks then refuse (EACCES at open, EPERM at
 * chgrp): Linux lets an invalidation in there until its commit
 * aff12041b4b2 ("fuse: fix inode initialization race", 2026).
 *
 * Files belong to OWNER:FGRP.  The owner is not in FGRP (its clearing
 * rule at a write differs from a member's), and chgrp moves a file to the
 * owner's own group.  "+fsetid": the actor keeps CAP_FSETID (and no other
 * capability).  Each case is a child process, bounded by alarm(10).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/falloc.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define OWNER 65534
#define FGRP 65530
#define MEMBER 65533
#define OTHER 65532
#define SIZE 8192

struct actor {
	const char *name;
	uid_t uid;                 /* -1: root, unchanged */
	gid_t gid;
	gid_t group;               /* a supplementary group, or 0: none */
	bool fsetid;
	bool file_is_roots;        /* -u: the file belongs to root, not the actor */
};

static const struct actor actors_root[] = {
	{ "root", (uid_t)-1, 0, 0, true, false },
	{ "owner", OWNER, OWNER, 0, false, false },
	{ "owner+fsetid", OWNER, OWNER, 0, true, false },
	{ "member", MEMBER, MEMBER, FGRP, false, false },
	{ "member+fsetid", MEMBER, MEMBER, FGRP, true, false },
	{ "other", OTHER, OTHER, 0, false, false },
	{ "other+fsetid", OTHER, OTHER, 0, true, false },
};

/* A user's mount: one uid, whose role the file decides. */
static const struct actor actors_user[] = {
	{ "owner", OWNER, OWNER, 0, false, false },
	{ "owner+fsetid", OWNER, OWNER, 0, true, false },
	{ "member", OWNER, OWNER, FGRP, false, true },
	{ "member+fsetid", OWNER, OWNER, FGRP, true, true },
	{ "other", OWNER, OWNER, 0, false, true },
	{ "other+fsetid", OWNER, OWNER, 0, true, true },
};

static const mode_t modes[] = { 06777, 04777, 02777, 02767, 06767, 04755, 02755 };

static const char *const ops[] = {
	"write", "append", "truncate", "ftruncate", "otrunc", "fallocate", "punch",
	"mmap", "copy_file_range", "splice", "chown-1", "chgrp", "chown", "chmod",
};

static const char *dir, *backdir;
static bool setup_behind, create_here;

static void die(const char *what)
{
	fprintf(stderr, "setid_table: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Takes on the actor's identity, keeping CAP_FSETID alone where it says. */
static void become(const struct actor *a)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	gid_t groups[1] = { a->group };

	if (a->uid == (uid_t)-1)
		return;
	if (setgroups(a->group ? 1 : 0, groups) < 0 || setresgid(a->gid, a->gid, a->gid) < 0 ||
	    prctl(PR_SET_KEEPCAPS, 1) < 0 || setresuid(a->uid, a->uid, a->uid) < 0)
		die("become");
	if (a->fsetid)
		d[0].effective = d[0].permitted = 1u << CAP_FSETID;
	if (syscall(SYS_capset, &h, d) < 0)
		die("capset");
	/* As after an exec: a changed identity made the process undumpable,
	 * and a user's daemon could not read its capabilities. */
	if (prctl(PR_SET_DUMPABLE, 1) < 0)
		die("dumpable");
}

static int do_write(int fd, const char *op)
{
	if (strcmp(op, "write") == 0 || strcmp(op, "append") == 0)
		return write(fd, "more", 4) == 4 ? 0 : -1;
	if (strcmp(op, "ftruncate") == 0)
		return ftruncate(fd, 2);
	if (strcmp(op, "fallocate") == 0)
		return fallocate(fd, 0, 0, 2 * SIZE);
	if (strcmp(op, "punch") == 0)
		return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096);
	if (strcmp(op, "mmap") == 0) {
		char *p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

		if (p == MAP_FAILED)
			return -1;
		p[1] = 'x';
		return msync(p, SIZE, MS_SYNC) | munmap(p, SIZE);
	}
	if (strcmp(op, "copy_file_range") == 0) {
		char src[4096];
		int in;
		off_t off = 0;

		snprintf(src, sizeof(src), "%s/source", dir);
		in = open(src, O_RDONLY);
		if (in < 0)
			return -1;
		ssize_t n = copy_file_range(in, NULL, fd, &off, 16, 0);
		close(in);
		return n == 16 ? 0 : -1;
	}
	if (strcmp(op, "splice") == 0) {
		int p[2];
		loff_t off = 0;

		if (pipe(p) < 0 || write(p[1], "spliced", 7) != 7)
			return -1;
		ssize_t n = splice(p[0], NULL, fd, &off, 7, 0);
		close(p[0]);
		close(p[1]);
		return n == 7 ? 0 : -1;
	}
	errno = EINVAL;
	return -1;
}

static int open_flags(const char *op)
{
	if (strcmp(op, "append") == 0)
		return O_WRONLY | O_APPEND;
	if (strcmp(op, "mmap") == 0)
		return O_RDWR;
	if (strcmp(op, "otrunc") == 0)
		return O_WRONLY | O_TRUNC;
	return O_WRONLY;
}

static bool by_path(const char *op)
{
	return strcmp(op, "truncate") == 0 || strcmp(op, "chown-1") == 0 ||
	       strcmp(op, "chgrp") == 0 || strcmp(op, "chown") == 0 || strcmp(op, "chmod") == 0;
}

static int path_op(const char *path, const char *op, mode_t mode)
{
	if (strcmp(op, "truncate") == 0)
		return truncate(path, 2);
	if (strcmp(op, "chown-1") == 0)
		return chown(path, (uid_t)-1, (gid_t)-1);
	if (strcmp(op, "chgrp") == 0)
		return chown(path, (uid_t)-1, OWNER);
	if (strcmp(op, "chown") == 0)
		return chown(path, OTHER, (gid_t)-1);
	return chmod(path, mode);  /* chmod: the mode it has, set again */
}

/*
 * The actor's part: for "behind", the file is first opened and written with
 * no set-ID bit (the kernel caches that mode and marks the inode as having
 * nothing to clear), the parent sets the bits in BACKDIR (go), and then
 * comes the operation, through the descriptor already open.  Exits 0 or
 * the errno of the operation.
 */
static void actor_part(const struct actor *a, const char *path, const char *op, mode_t mode,
		       bool behind, int ready, int go)
{
	int fd = -1;
	char c = 0;

	alarm(10);
	become(a);
	if (behind) {
		struct stat st;

		stat(path, &st);
		fd = open(path, by_path(op) ? O_WRONLY : open_flags(op) & ~O_TRUNC);
		if (fd >= 0 && pwrite(fd, "w", 1, 0) != 1)
			_exit(100);
		if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 1)
			_exit(101);
		if (strcmp(op, "otrunc") == 0) {
			if (fd >= 0)
				close(fd);
			fd = -1;
		}
	}
	if (by_path(op))
		_exit(path_op(path, op, mode) < 0 ? errno : 0);
	if (fd < 0 && (fd = open(path, open_flags(op))) < 0)
		_exit(errno);
	if (strcmp(op, "otrunc") == 0)
		_exit(0);
	_exit(do_write(fd, op) < 0 ? errno : 0);
}

static const char *errname(int e)
{
	switch (e) {
	case 0: return "OK";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EINVAL: return "EINVAL";
	case EIO: return "EIO";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EXDEV: return "EXDEV";
	case ENOSYS: return "ENOSYS";
	case EBADF: return "EBADF";
	case ETXTBSY: return "ETXTBSY";
	case ENOENT: return "ENOENT";
	default: return "other";
	}
}

/* Makes the file in BACKDIR, and gives it its owner and mode. */
static void setup(const char *path, const char *back, const struct actor *a, mode_t mode,
		  bool behind)
{
	static char data[SIZE];
	const char *at = setup_behind ? back : path;
	uid_t uid = a->file_is_roots ? 0 : OWNER;
	int fd = open(create_here ? path : back, O_WRONLY | O_CREAT | O_EXCL, 0600);

	memset(data, 'd', sizeof(data));
	if (fd < 0 || write(fd, data, sizeof(data)) != SIZE || close(fd) < 0)
		die(create_here ? path : back);
	if (chown(at, uid, FGRP) < 0 || chmod(at, behind ? mode & 0777 : mode) < 0)
		die(at);
}

/* The case's file: its name, and its paths through DIR and in BACKDIR. */
static void case_paths(const struct actor *a, mode_t mode, const char *op, bool behind,
		       char name[128], char path[4096], char back[4096])
{
	snprintf(name, 128, "%o-%s-%s-%s", (unsigned)mode, op, a->name,
		 behind ? "behind" : "mount");
	snprintf(path, 4096, "%s/%s", dir, name);
	snprintf(back, 4096, "%s/%s", backdir, name);
}

static void prepare(const struct actor *a, mode_t mode, const char *op, bool behind)
{
	char name[128], path[4096], back[4096];

	case_paths(a, mode, op, behind, name, path, back);
	setup(path, back, a, mode, behind);
}

static void one(const struct actor *a, mode_t mode, const char *op, bool behind)
{
	char name[128], path[4096], back[4096], c;
	int ready[2], go[2], status, e;
	struct stat st;
	pid_t pid;

	case_paths(a, mode, op, behind, name, path, back);
	if (!setup_behind)
		setup(path, back, a, mode, behind);
	if (pipe(ready) < 0 || pipe(go) < 0)
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		actor_part(a, path, op, mode, behind, ready[1], go[0]);
	}
	close(ready[1]);
	close(go[0]);
	if (behind) {
		if (read(ready[0], &c, 1) != 1)
			die("the actor's signal");
		if (chmod(back, mode) < 0)
			die(back);
		if (write(go[1], "g", 1) != 1)
			die("go");
	}
	close(ready[0]);
	close(go[1]);
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status) >= 100) {
		fprintf(stderr, "setid_table: %s: the actor failed (status %#x)\n", name, status);
		exit(2);
	}
	e = WEXITSTATUS(status);
	if (lstat(back, &st) < 0)
		die(back);
	printf("%o %s %s %s %s %o\n", (unsigned)mode, op, a->name, behind ? "behind" : "mount",
	       errname(e), (unsigned)(st.st_mode & 07777));
}

/* Runs f on every case, in the table's order. */
static void each_case(const struct actor *actors, size_t nactors,
		      void (*f)(const struct actor *a, mode_t mode, const char *op, bool behind))
{
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
			for (size_t i = 0; i < nactors; i++)
				for (int behind = 0; behind < 2; behind++)
					f(&actors[i], modes[m], ops[o], behind);
}

int main(int argc, char **argv)
{
	const struct actor *actors = actors_root;
	size_t nactors = sizeof(actors_root) / sizeof(actors_root[0]);
	char src[4096];
	int opt, fd;

	while ((opt = getopt(argc, argv, "usc")) != -1) {
		if (opt == 'u') {
			actors = actors_user;
			nactors = sizeof(actors_user) / sizeof(actors_user[0]);
		} else if (opt == 's') {
			setup_behind = true;
		} else if (opt == 'c') {
			create_here = true;
		} else {
			return 2;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: setid_table [-u] [-s] [-c] DIR BACKDIR\n");
		return 2;
	}
	dir = argv[optind];
	backdir = argv[optind + 1];
	snprintf(src, sizeof(src), "%s/source", create_here ? dir : backdir);
	fd = open(src, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "0123456789abcdef", 16) != 16 || close(fd) < 0)
		die(src);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (setup_behind)
		each_case(actors, nactors, prepare);
	each_case(actors, nactors, one);
	return 0;
}
