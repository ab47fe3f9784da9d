/* Messages for the library's error codes. */
#include <errno.h>

#include "casefold.h"

const char *cf_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -EINVAL:
		return "invalid name for the encoding";
	case -ENAMETOOLONG:
		return "result too long";
	case -ENOENT:
		return "unknown encoding";
	default:
		return "unknown error";
	}
}
