/*
 * What this daemon is allowed to do, from its effective capabilities: the
 * same binary runs as root (chown to the caller, trusted.* xattrs) and as
 * an ordinary user through fusermount3 (neither).
 */
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "casefoldfs.h"

/* Is cap in the effective set?  glibc has no wrapper; libcap is not needed. */
bool caps_have(int cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (cap < 0 || cap / 32 >= _LINUX_CAPABILITY_U32S_3 ||
	    syscall(SYS_capget, &hdr, data) < 0)
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}
