/*
 * The watchdog: what a worker has been answering for too long.  A handler
 * can wait on what the daemon does not control — a backing file on a hung
 * mount, a lease the kernel breaks slowly — and the kernel's
 * request_timeout would then abort the whole mount for every user.  The
 * main thread looks at the workers once a second (loop.c): a request busy
 * for STUCK_REPORT_MS is logged once, with the system call its worker is
 * in; one busy for half the granted request_timeout is answered EIO in its
 * worker's place, so that the timeout stays the kernel's last resort for a
 * daemon that is stuck as a whole.  The worker's own answer, when it comes,
 * finds the request gone (ENOENT), which every handler already takes as an
 * interrupted request.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kernel/dispatch.h"
#include "kernel/reply.h"
#include "kernel/watchdog.h"

#define STUCK_REPORT_MS 5000

uint64_t fk_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void fk_busy_begin(struct fk_busy *b, const char *buf, size_t len)
{
	const struct fuse_in_header *ih = (const void *)buf;

	if (len < sizeof(*ih))
		return;
	atomic_store_explicit(&b->unique, ih->unique, memory_order_relaxed);
	atomic_store_explicit(&b->nodeid, ih->nodeid, memory_order_relaxed);
	atomic_store_explicit(&b->opcode, ih->opcode, memory_order_relaxed);
	atomic_store_explicit(&b->since, fk_now_ms(), memory_order_release);
}

void fk_busy_end(struct fk_busy *b)
{
	atomic_store_explicit(&b->since, 0, memory_order_release);
}

/* The system calls a handler makes that can wait; others by number. */
static const char *syscall_name(long nr)
{
	static const struct { long nr; const char *name; } names[] = {
		{ SYS_read, "read" }, { SYS_write, "write" }, { SYS_pread64, "pread64" },
		{ SYS_pwrite64, "pwrite64" }, { SYS_writev, "writev" }, { SYS_openat, "openat" },
		{ SYS_open, "open" }, { SYS_newfstatat, "newfstatat" }, { SYS_statx, "statx" },
		{ SYS_fstat, "fstat" }, { SYS_getdents64, "getdents64" }, { SYS_fsync, "fsync" },
		{ SYS_fdatasync, "fdatasync" }, { SYS_fallocate, "fallocate" },
		{ SYS_ioctl, "ioctl" }, { SYS_futex, "futex" },
		{ SYS_renameat2, "renameat2" }, { SYS_unlinkat, "unlinkat" },
		{ SYS_mkdirat, "mkdirat" }, { SYS_linkat, "linkat" }, { SYS_symlinkat, "symlinkat" },
		{ SYS_fcntl, "fcntl" }, { SYS_flock, "flock" }, { SYS_copy_file_range, "copy_file_range" },
		{ SYS_fgetxattr, "fgetxattr" }, { SYS_fsetxattr, "fsetxattr" },
		{ SYS_getxattr, "getxattr" }, { SYS_setxattr, "setxattr" }, { SYS_lgetxattr, "lgetxattr" },
		{ SYS_fchmodat, "fchmodat" }, { SYS_fchownat, "fchownat" }, { SYS_utimensat, "utimensat" },
		{ SYS_poll, "poll" }, { SYS_ppoll, "ppoll" }, { SYS_nanosleep, "nanosleep" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].nr == nr)
			return names[i].name;
	return NULL;
}

/* Where thread tid waits: "system call NAME, in WCHAN", as /proc tells. */
static void where(pid_t tid, char *buf, size_t len)
{
	char path[64], wchan[64] = "", call[32] = "unknown";
	const char *name;
	FILE *f;
	long nr;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	if ((f = fopen(path, "re"))) {
		/* "running", or the number and arguments of the call it waits in. */
		if (fscanf(f, "%ld", &nr) != 1)
			snprintf(call, sizeof(call), "none (running)");
		else if ((name = syscall_name(nr)))
			snprintf(call, sizeof(call), "%s", name);
		else
			snprintf(call, sizeof(call), "number %ld", nr);
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/wchan", (int)tid);
	if ((f = fopen(path, "re"))) {
		if (!fgets(wchan, sizeof(wchan), f) || !strcmp(wchan, "0"))
			wchan[0] = '\0';
		fclose(f);
	}
	snprintf(buf, len, "system call %s%s%s", call, wchan[0] ? ", in " : "", wchan);
}

void fk_watch(struct fk_session *se, struct fk_busy *b, int fd, uint64_t now)
{
	uint64_t since = atomic_load_explicit(&b->since, memory_order_acquire);
	uint64_t unique = atomic_load_explicit(&b->unique, memory_order_relaxed);
	uint64_t nodeid = atomic_load_explicit(&b->nodeid, memory_order_relaxed);
	uint32_t opcode = atomic_load_explicit(&b->opcode, memory_order_relaxed);
	uint64_t answer_ms = (uint64_t)se->request_timeout * 500;
	char at[160];

	/* A new request since the last look starts its account afresh. */
	if (since != b->seen) {
		b->seen = since;
		b->reported = b->answered = false;
	}
	if (!since || atomic_load_explicit(&b->since, memory_order_acquire) != since)
		return;
	if (!b->reported && now - since >= STUCK_REPORT_MS) {
		b->reported = true;
		where(atomic_load_explicit(&b->tid, memory_order_relaxed), at, sizeof(at));
		fprintf(stderr, "casefoldfs: %s of node %llu has waited %llu s in %s\n",
			fk_opname(opcode), (unsigned long long)nodeid,
			(unsigned long long)((now - since) / 1000), at);
	}
	if (!b->answered && answer_ms && fd >= 0 && now - since >= answer_ms) {
		b->answered = true;
		if (fk_send(fd, unique, EIO, NULL, 0) == 0)
			fprintf(stderr, "casefoldfs: %s of node %llu answered EIO after %llu s, "
				"before the kernel's request_timeout (%u s) would end the mount\n",
				fk_opname(opcode), (unsigned long long)nodeid,
				(unsigned long long)((now - since) / 1000), se->request_timeout);
	}
}
