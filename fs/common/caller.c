/*
 * Who is asking.  The daemon acts as root; the kernel checks the caller's
 * permissions (default_permissions) on what it believes the objects are.
 * Where a rule depends on the object the daemon actually acts on, or on a
 * capability the kernel leaves to the filesystem (ext4 checks +j itself),
 * the daemon checks it here, failing closed: a capability it cannot
 * establish is a capability the caller lacks.
 *
 * The request gives the caller's pid, uid and gid, not its capabilities.
 * They are read from /proc/PID/status (CapEff), trusted only if
 *   - the pid is known (0 when the caller is in a pid namespace the daemon
 *     cannot see),
 *   - the process there still has the request's fsuid (a pid reused after
 *     the caller died would rarely match; the caller normally sleeps in its
 *     system call until we answer, so its pid cannot be reused), and
 *   - it is in the daemon's user namespace: a capability held in a child
 *     namespace does not count on the host, and CapEff does not say where
 *     it is held.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/caller.h"

/* Same object: the caller's user namespace is the daemon's. */
static bool same_user_ns(pid_t pid)
{
	char path[64];
	struct stat mine, theirs;

	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	return stat("/proc/self/ns/user", &mine) == 0 && stat(path, &theirs) == 0 &&
	       mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino;
}

/*
 * The effective capability set of pid if its filesystem uid is uid, from
 * /proc/PID/status: 0 with *caps set, or -errno.
 */
static int read_caps(pid_t pid, uid_t uid, uint64_t *caps)
{
	unsigned long r, e, s, f;
	bool have_uid = false, have_caps = false;
	char path[64], line[256];
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "Uid: %lu %lu %lu %lu", &r, &e, &s, &f) == 4)
			have_uid = f == (unsigned long)uid;
		else if (sscanf(line, "CapEff: %" SCNx64, caps) == 1)
			have_caps = true;
	}
	fclose(fp);
	return have_uid && have_caps ? 0 : -EPERM;
}

bool caller_capable(fk_req_t req, int cap)
{
	const struct fk_ctx *ctx = fk_req_ctx(req);
	uint64_t caps;

	if (ctx->pid <= 0 || !same_user_ns(ctx->pid))
		return false;
	if (read_caps(ctx->pid, ctx->uid, &caps) < 0)
		return false;
	return cap >= 0 && cap < 64 && (caps >> cap & 1);
}

/*
 * Removing an entry of a sticky directory depends on the object removed:
 * only the owner of the entry or of the directory (or CAP_FOWNER) may.  The
 * kernel checked its own idea of the object, which a writer of the backing
 * tree may have replaced since, and a check of ours followed by unlinkat
 * would leave the same gap.  So in a sticky directory the caller does not
 * own, the daemon removes or renames as the caller (filesystem uid, gid and
 * groups, on this thread only): the backing kernel then checks, in the same
 * call that acts, the object that is really there.  Elsewhere the
 * permission to remove depends on the directory alone, which the kernel has
 * checked and the daemon holds by descriptor.
 */
static bool sticky_for(const struct fk_ctx *ctx, const struct stat *dst)
{
	return (dst->st_mode & S_ISVTX) && dst->st_uid != ctx->uid;
}

/* This thread's credentials for filesystem access. */
struct fscreds {
	int ngroups;
	gid_t *groups;
};

/* Whether gid is the caller's filesystem group or one of its first 256
 * supplementary groups (beyond those: no, the answer that clears a bit). */
bool caller_in_group(fk_req_t req, gid_t gid)
{
	gid_t groups[256];
	int n;

	if (fk_req_ctx(req)->gid == gid)
		return true;
	n = fk_req_getgroups(req, 256, groups);
	for (int i = 0; i < n && i < 256; i++)
		if (groups[i] == gid)
			return true;
	return false;
}

/*
 * Takes on the caller's filesystem identity on this thread.  setgroups must
 * be the raw system call: glibc's changes every thread of the process.
 */
static int become_caller(fk_req_t req, struct fscreds *saved)
{
	const struct fk_ctx *ctx = fk_req_ctx(req);
	gid_t *groups;
	int n;

	saved->ngroups = getgroups(0, NULL);
	saved->groups = calloc((size_t)saved->ngroups + 1, sizeof(gid_t));
	if (saved->ngroups < 0 || !saved->groups ||
	    getgroups(saved->ngroups, saved->groups) != saved->ngroups) {
		free(saved->groups);
		return -ENOMEM;
	}
	n = fk_req_getgroups(req, 0, NULL);
	groups = calloc(n > 0 ? (size_t)n : 1, sizeof(gid_t));
	if (n < 0 || !groups || fk_req_getgroups(req, n, groups) != n ||
	    syscall(SYS_setgroups, (size_t)n, groups) < 0) {
		free(groups);
		free(saved->groups);
		return n < 0 ? n : -EPERM;
	}
	free(groups);
	setfsgid(ctx->gid);
	setfsuid(ctx->uid);
	return 0;
}

static void become_daemon(struct fscreds *saved)
{
	setfsuid(geteuid());
	setfsgid(getegid());
	syscall(SYS_setgroups, (size_t)saved->ngroups, saved->groups);
	free(saved->groups);
}

/*
 * unlinkat(dfd, name, flags), as the caller where the object matters; dst:
 * the directory's attributes as checked in this hold of its lock.
 */
int caller_unlinkat(fk_req_t req, int dfd, const struct stat *dst, const char *name,
		    int flags)
{
	struct fscreds saved;
	int err;

	if (!sticky_for(fk_req_ctx(req), dst))
		return unlinkat(dfd, name, flags) < 0 ? -errno : 0;
	err = become_caller(req, &saved);
	if (err < 0)
		return err;
	err = unlinkat(dfd, name, flags) < 0 ? -errno : 0;
	become_daemon(&saved);
	/* CAP_FOWNER does not survive a nonzero fsuid: check it ourselves. */
	if (err == -EPERM && caller_capable(req, CAP_FOWNER))
		err = unlinkat(dfd, name, flags) < 0 ? -errno : 0;
	return err;
}

/* renameat2, likewise: both the entry moved and the one replaced matter. */
int caller_renameat2(fk_req_t req, int dfd, const struct stat *dst, const char *from,
		     int ndfd, const struct stat *ndst, const char *to, unsigned int flags)
{
	const struct fk_ctx *ctx = fk_req_ctx(req);
	struct fscreds saved;
	int err;

	if (!sticky_for(ctx, dst) && !sticky_for(ctx, ndst))
		return renameat2(dfd, from, ndfd, to, flags) < 0 ? -errno : 0;
	err = become_caller(req, &saved);
	if (err < 0)
		return err;
	err = renameat2(dfd, from, ndfd, to, flags) < 0 ? -errno : 0;
	become_daemon(&saved);
	if (err == -EPERM && caller_capable(req, CAP_FOWNER))
		err = renameat2(dfd, from, ndfd, to, flags) < 0 ? -errno : 0;
	return err;
}

/*
 * Inode flags that need a capability (ext4: +i and +a CAP_LINUX_IMMUTABLE,
 * +j CAP_SYS_RESOURCE) are checked by the kernel that sets them — the
 * backing kernel, against the daemon's capabilities, not the caller's; the
 * FUSE kernel checks +i and +a too, but against the flags we reported a
 * moment earlier, and +j not at all.  So the flag ioctls run with this
 * thread's effective set lacking whichever of these the caller lacks: the
 * backing kernel then decides, in the call that acts, against the flags
 * the object has at that moment.  capset changes the calling thread only.
 */
static const int flag_caps[] = { CAP_LINUX_IMMUTABLE, CAP_SYS_RESOURCE };

int caller_caps_begin(fk_req_t req, struct caller_caps *saved)
{
	struct caps_sets cut;
	int err = caps_get(&saved->sets);

	if (err < 0)
		return err;
	cut = saved->sets;
	saved->changed = false;
	for (size_t i = 0; i < sizeof(flag_caps) / sizeof(flag_caps[0]); i++) {
		int c = flag_caps[i];

		if (!caps_effective(&cut, c) || caller_capable(req, c))
			continue;
		caps_drop_effective(&cut, c);
		saved->changed = true;
	}
	return saved->changed ? caps_set(&cut) : 0;
}

void caller_caps_end(struct caller_caps *saved)
{
	/* The permitted set never changed, so raising them again cannot fail. */
	if (saved->changed)
		caps_set(&saved->sets);
}

/*
 * An ioctl whose rule is ext4's inode_owner_or_capable (FS_IOC_SETVERSION):
 * the owner of the object, as the mount reports it, or a caller with
 * CAP_FOWNER.  The kernel leaves raw ioctls to us, so the daemon checks the
 * owner of the object fd is on (an unprivileged daemon's backing kernel
 * would only see the daemon's own files), then acts with the caller's
 * filesystem identity and without CAP_FOWNER, so that a root daemon's
 * backing kernel checks again, in the call that acts, against the object
 * as it is then.  A caller with CAP_FOWNER is served as the daemon.
 */
int caller_ioctl_owner(fk_req_t req, int fd, unsigned long cmd, void *arg)
{
	const struct fk_ctx *ctx = fk_req_ctx(req);
	struct caps_sets saved, cut;
	struct fscreds creds;
	struct stat st;
	int err;

	if (caller_capable(req, CAP_FOWNER))
		return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_uid != ctx->uid)
		return -EPERM;
	err = caps_get(&saved);
	if (err < 0)
		return err;
	/* A daemon that cannot take on another identity has no CAP_FOWNER
	 * either: the owner check above is the whole rule. */
	if (!caps_effective(&saved, CAP_SETUID) || !caps_effective(&saved, CAP_SETGID))
		return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
	cut = saved;
	caps_drop_effective(&cut, CAP_FOWNER);
	err = become_caller(req, &creds);
	if (err < 0)
		return err;
	err = caps_set(&cut);
	if (err == 0)
		err = ioctl(fd, cmd, arg) < 0 ? -errno : 0;
	become_daemon(&creds);
	/* The fsuid's return raised what it had dropped; FOWNER too. */
	caps_set(&saved);
	return err;
}
