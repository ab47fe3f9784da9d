/*
 * collide DIR COUNT BITS: an attacker's directory for index.sh.
 *
 * Creates COUNT empty files in DIR whose names all hash alike in their low
 * BITS bits under the library's fixed (zero) key, the way someone who knew
 * the daemon's key would fill a directory to pile names into a few index
 * buckets.  Then prints how the daemon's index (buckets: the next power of
 * two >= COUNT, bucket = hash & (buckets - 1)) would have looked under that
 * fixed key:
 *
 *   fixed-key buckets B longest L
 *
 * Names are mixed case ("Coll" + hex digits), so lookups in another case
 * must go through the index.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "casefold.h"

int main(int argc, char **argv)
{
	unsigned long count, bits, made = 0, longest = 0;
	size_t buckets = 64;
	unsigned long *chain;
	cf_encoding enc;
	int dirfd;

	if (argc != 4) {
		fprintf(stderr, "usage: collide DIR COUNT BITS\n");
		return 2;
	}
	count = strtoul(argv[2], NULL, 10);
	bits = strtoul(argv[3], NULL, 10);
	dirfd = open(argv[1], O_PATH | O_DIRECTORY);
	if (dirfd < 0 || cf_encoding_load(&enc, "utf8-12.1.0", 0) < 0 || bits > 32) {
		fprintf(stderr, "collide: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	while (buckets < count)
		buckets *= 2;
	chain = calloc(buckets, sizeof(*chain));
	if (!chain)
		return 1;
	for (unsigned long i = 0; made < count; i++) {
		uint64_t mask = (UINT64_C(1) << bits) - 1, h;
		char name[32];
		int fd;

		snprintf(name, sizeof(name), "Coll%lX", i);
		if (cf_name_hash(&enc, name, strlen(name), &h) < 0 || (h & mask) != 0)
			continue;
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			fprintf(stderr, "collide: %s: %s\n", name, strerror(errno));
			return 1;
		}
		close(fd);
		if (++chain[h & (buckets - 1)] > longest)
			longest = chain[h & (buckets - 1)];
		made++;
	}
	printf("fixed-key buckets %zu longest %lu\n", buckets, longest);
	free(chain);
	return 0;
}
