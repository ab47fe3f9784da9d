/*
 * File handles of the mount, as nfsd uses them (issue 21, NFS export):
 *
 *   fhandle save PATH FILE     name_to_handle_at(PATH) into FILE
 *   fhandle derive PATH FILE   the handle casefoldfs's mount gives the object
 *                              at PATH of its backing tree, into FILE: FUSE's
 *                              (node id, generation), with the node id derived
 *                              from PATH's own handle (FILEID_INO32_GEN:
 *                              generation << 32 | inode) and generation 0
 *   fhandle open MOUNT FILE    open_by_handle_at(MOUNT, FILE's handle) and
 *                              print "file CONTENT" (its first line), "dir
 *                              NAMES" (entries, sorted, space-separated)
 *                              or the errno name
 *
 * open_by_handle_at needs CAP_DAC_READ_SEARCH (root).  For a handle the
 * kernel no longer has an inode for, FUSE asks the daemon LOOKUP(id, ".")
 * and, for a directory, LOOKUP(dir, "..") up to a known one (reconnect).
 * Exit status 0 when the call succeeded, 1 when it failed, 2 on misuse.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failed(void)
{
	const char *n = errno == ESTALE ? "ESTALE" : errno == ENOENT ? "ENOENT" :
			errno == EIO ? "EIO" : errno == EACCES ? "EACCES" : NULL;

	if (n)
		printf("%s\n", n);
	else
		printf("errno %d (%s)\n", errno, strerror(errno));
	return 1;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int show(int fd)
{
	char buf[256], *names[64];
	size_t n = 0;
	ssize_t r;
	DIR *d;
	struct dirent *de;

	r = read(fd, buf, sizeof(buf) - 1);
	if (r >= 0) {
		buf[r] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		printf("file %s\n", buf);
		return 0;
	}
	if (errno != EISDIR)
		return failed();
	d = fdopendir(fd);
	if (!d)
		return failed();
	while (n < 64 && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			names[n++] = strdup(de->d_name);
	qsort(names, n, sizeof(names[0]), cmp);
	printf("dir");
	for (size_t i = 0; i < n; i++) {
		printf(" %s", names[i]);
		free(names[i]);
	}
	printf("\n");
	closedir(d);
	return 0;
}

union handle {
	struct file_handle fh;
	char bytes[sizeof(struct file_handle) + MAX_HANDLE_SZ];
};

/*
 * Turns h, a backing handle of FILEID_INO32_GEN (type 1: u32 inode, u32
 * generation), into the FUSE handle of the node id derived from it (type
 * 0x81: id high and low words, generation; fs/fuse/export.c's layout).
 */
static int derive(union handle *h)
{
	uint32_t ino, gen, fuse[3];

	if (h->fh.handle_type != 1 || h->fh.handle_bytes != 8)
		return -1;
	memcpy(&ino, h->fh.f_handle, 4);
	memcpy(&gen, h->fh.f_handle + 4, 4);
	fuse[0] = gen;
	fuse[1] = ino;
	fuse[2] = 0;
	h->fh.handle_type = 0x81;
	h->fh.handle_bytes = sizeof(fuse);
	memcpy(h->fh.f_handle, fuse, sizeof(fuse));
	return 0;
}

int main(int argc, char **argv)
{
	union handle h;
	int mount_id, fd, mfd;
	FILE *f;

	if (argc != 4)
		return 2;
	if (strcmp(argv[1], "save") == 0 || strcmp(argv[1], "derive") == 0) {
		h.fh.handle_bytes = MAX_HANDLE_SZ;
		if (name_to_handle_at(AT_FDCWD, argv[2], &h.fh, &mount_id, 0) < 0)
			return failed();
		if (argv[1][0] == 'd' && derive(&h) < 0)
			return 2;
		f = fopen(argv[3], "wb");
		if (!f || fwrite(&h, sizeof(h.fh) + h.fh.handle_bytes, 1, f) != 1 || fclose(f))
			return 2;
		return 0;
	}
	if (strcmp(argv[1], "open") != 0)
		return 2;
	f = fopen(argv[3], "rb");
	if (!f || fread(&h, 1, sizeof(h), f) < sizeof(h.fh))
		return 2;
	fclose(f);
	mfd = open(argv[2], O_RDONLY | O_DIRECTORY);
	if (mfd < 0)
		return failed();
	fd = open_by_handle_at(mfd, &h.fh, O_RDONLY);
	if (fd < 0)
		return failed();
	return show(fd);
}
