/*
 * What this daemon is allowed to do, from its effective capabilities: the
 * same binary runs as root (chown to the caller, trusted.* xattrs) and as
 * an ordinary user through fusermount3 (neither).  glibc has no capget
 * wrapper and libcap is not needed: the two system calls are used here,
 * and only here.
 */
#include <errno.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/caps.h"

_Static_assert(sizeof(((struct caps_sets *)0)->data) ==
		       sizeof(struct __user_cap_data_struct) * _LINUX_CAPABILITY_U32S_3,
	       "caps_sets matches the kernel's version-3 layout");

static struct __user_cap_header_struct header(void)
{
	return (struct __user_cap_header_struct){ .version = _LINUX_CAPABILITY_VERSION_3 };
}

/* This thread's sets; 0 or -errno. */
int caps_get(struct caps_sets *s)
{
	struct __user_cap_header_struct h = header();

	return syscall(SYS_capget, &h, s->data) < 0 ? -errno : 0;
}

/* Sets this thread's sets (capset changes the calling thread only). */
int caps_set(const struct caps_sets *s)
{
	struct __user_cap_header_struct h = header();

	return syscall(SYS_capset, &h, s->data) < 0 ? -errno : 0;
}

static bool valid(int cap)
{
	return cap >= 0 && cap / 32 < _LINUX_CAPABILITY_U32S_3;
}

bool caps_effective(const struct caps_sets *s, int cap)
{
	return valid(cap) && (s->data[cap / 32].effective & 1u << cap % 32);
}

void caps_drop_effective(struct caps_sets *s, int cap)
{
	if (valid(cap))
		s->data[cap / 32].effective &= ~(1u << cap % 32);
}

/* Is cap in the daemon's effective set? */
bool caps_have(int cap)
{
	struct caps_sets s;

	return caps_get(&s) == 0 && caps_effective(&s, cap);
}
