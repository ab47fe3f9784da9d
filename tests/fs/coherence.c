/*
 * coherence DIR ROUNDS SECONDS WRITERS READERS HOLD NAME...
 *
 * Rewriters and readers of one file (issue 13).  Each of WRITERS processes
 * does ROUNDS times, or until SECONDS have passed (a loaded machine must not
 * stretch the run without bound): open(NAME, O_WRONLY|O_TRUNC), write one 19-byte token,
 * fsync, close, cycling through the NAMEs given (fold-equal spellings of one
 * file in a casefolded directory, or one name on a plain filesystem).  Each
 * of READERS processes reads the file until the writers are done; reader 0
 * keeps one descriptor open for the whole run and preads it (a reader that
 * opened before the writers did), the others open, read to EOF and close,
 * cycling through the NAMEs too.  HOLD 1: the file is also held open for
 * writing (no truncation, no write) from before the first reader opens it
 * to the end, so that every reader's open finds a writer open.
 *
 * As on ext4, every read must give an empty file or one whole token.  Prints
 * one line of counts; a read of only zero bytes is "zeroed", anything else
 * neither empty nor a token is "torn".  Exit 0 if both are 0, 1 otherwise,
 * 2 on a setup error.  The caller checks that both empty files and tokens
 * were read, i.e. that the readers did meet the rewrites.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOKEN_LEN 19

struct counts {
	unsigned long reads, empty, whole, zeroed, torn;
	int first_torn_len;
	unsigned char first_torn[TOKEN_LEN + 1];
};

static void die(const char *what, const char *name)
{
	fprintf(stderr, "coherence: %s %s: %s\n", what, name, strerror(errno));
	exit(2);
}

/* "wN rNNNNNNNN token\n": who wrote it and when, always 19 bytes. */
static void token(char buf[TOKEN_LEN + 1], int writer, unsigned round)
{
	snprintf(buf, TOKEN_LEN + 1, "w%1u r%08u token\n", (unsigned)writer % 10, round % 100000000u);
}

static int is_token(const unsigned char *b, size_t n)
{
	return n == TOKEN_LEN && b[0] == 'w' && b[2] == ' ' && b[3] == 'r' &&
	       memcmp(b + 12, " token\n", 7) == 0;
}

static void classify(struct counts *c, const unsigned char *b, ssize_t n)
{
	size_t i;

	c->reads++;
	if (n == 0) {
		c->empty++;
		return;
	}
	if (is_token(b, (size_t)n)) {
		c->whole++;
		return;
	}
	for (i = 0; i < (size_t)n && b[i] == 0; i++)
		;
	if (i == (size_t)n) {
		c->zeroed++;
		return;
	}
	if (c->torn++ == 0) {
		c->first_torn_len = (int)n;
		memcpy(c->first_torn, b, (size_t)n < TOKEN_LEN ? (size_t)n : TOKEN_LEN);
	}
}

/* Reads up to sizeof(buf) bytes from offset 0, to EOF. */
static ssize_t read_whole(int fd, unsigned char *buf, size_t size)
{
	size_t got = 0;
	ssize_t n;

	while (got < size) {
		n = pread(fd, buf + got, size - got, (off_t)got);
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* Returns the rounds done: ROUNDS, or fewer if the deadline came first. */
static unsigned writer(int id, unsigned rounds, time_t deadline, char **names, int nnames)
{
	char tok[TOKEN_LEN + 1];
	unsigned r;
	int fd;

	for (r = 0; r < rounds && time(NULL) < deadline; r++) {
		const char *name = names[(r + (unsigned)id) % (unsigned)nnames];

		fd = open(name, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0)
			die("open", name);
		token(tok, id, r);
		if (write(fd, tok, TOKEN_LEN) != TOKEN_LEN)
			die("write", name);
		if (fsync(fd) < 0)
			die("fsync", name);
		if (close(fd) < 0)
			die("close", name);
	}
	return r;
}

static void reader(int id, volatile int *done, char **names, int nnames,
		   struct counts *c)
{
	unsigned char buf[4096];
	unsigned i = 0;
	ssize_t n;
	int fd = -1;

	if (id == 0 && (fd = open(names[0], O_RDONLY | O_CLOEXEC)) < 0)
		die("open", names[0]);
	while (!*done) {
		if (id == 0) {
			n = read_whole(fd, buf, sizeof(buf));
			if (n < 0)
				die("pread", names[0]);
		} else {
			const char *name = names[(i++ + (unsigned)id) % (unsigned)nnames];
			int rfd = open(name, O_RDONLY | O_CLOEXEC);

			if (rfd < 0)
				die("open", name);
			n = read_whole(rfd, buf, sizeof(buf));
			if (n < 0)
				die("read", name);
			close(rfd);
		}
		classify(c, buf, n);
	}
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	struct counts *c, sum = { 0 };
	volatile int *done;
	unsigned rounds, seconds;
	unsigned long *written;
	time_t deadline;
	int writers, readers, hold, held = -1, nnames, i, status, bad = 0;
	unsigned long sum_written = 0;
	pid_t *pids;

	if (argc < 8) {
		fprintf(stderr,
			"usage: coherence DIR ROUNDS SECONDS WRITERS READERS HOLD NAME...\n");
		return 2;
	}
	if (chdir(argv[1]) < 0)
		die("chdir", argv[1]);
	rounds = (unsigned)strtoul(argv[2], NULL, 10);
	seconds = (unsigned)strtoul(argv[3], NULL, 10);
	writers = atoi(argv[4]);
	readers = atoi(argv[5]);
	hold = atoi(argv[6]);
	nnames = argc - 7;
	deadline = time(NULL) + (time_t)seconds;
	if (writers < 1 || writers > 9 || readers < 1 || readers > 64)
		return 2;
	/* Shared with the children: their counts, and the writers' end. */
	c = mmap(NULL, sizeof(*c) * (size_t)readers + sizeof(*written) * (size_t)writers +
		 sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		die("mmap", "");
	written = (unsigned long *)(c + readers);
	done = (volatile int *)(written + writers);
	pids = calloc((size_t)(writers + readers), sizeof(*pids));
	if (!pids)
		return 2;
	/* Start from a whole token, so the held reader opens a written file. */
	writer(0, 1, deadline, argv + 7, nnames);
	if (hold && (held = open(argv[7], O_WRONLY | O_CLOEXEC)) < 0)
		die("open", argv[7]);
	for (i = 0; i < readers + writers; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork", "");
		if (pids[i] == 0) {
			if (i < readers)
				reader(i, done, argv + 7, nnames, &c[i]);
			else
				written[i - readers] = writer(i - readers + 1, rounds, deadline,
							      argv + 7, nnames);
			_exit(0);
		}
	}
	for (i = readers; i < readers + writers; i++)
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			bad = 2;
	*done = 1;
	for (i = 0; i < readers; i++)
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			bad = 2;
	if (held >= 0)
		close(held);
	free(pids);
	for (i = 0; i < writers; i++)
		sum_written += written[i];
	for (i = 0; i < readers; i++) {
		sum.reads += c[i].reads;
		sum.empty += c[i].empty;
		sum.whole += c[i].whole;
		sum.zeroed += c[i].zeroed;
		sum.torn += c[i].torn;
		if (c[i].torn && !sum.first_torn_len) {
			sum.first_torn_len = c[i].first_torn_len;
			memcpy(sum.first_torn, c[i].first_torn, TOKEN_LEN);
		}
	}
	printf("writes %lu reads %lu empty %lu whole %lu zeroed %lu torn %lu "
	       "(held descriptor: reads %lu zeroed %lu torn %lu)\n",
	       sum_written, sum.reads, sum.empty,
	       sum.whole, sum.zeroed, sum.torn, c[0].reads, c[0].zeroed, c[0].torn);
	if (sum.torn) {
		printf("first torn read: %d bytes:", sum.first_torn_len);
		for (i = 0; i < sum.first_torn_len && i < TOKEN_LEN; i++)
			printf(" %02x", sum.first_torn[i]);
		printf("\n");
	}
	if (bad)
		return bad;
	return sum.zeroed || sum.torn ? 1 : 0;
}
