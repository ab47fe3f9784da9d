/* Minimal assertions for the unit tests: each CHECK counts, failures print
 * where and why, and test_done() turns the count into the exit status. */
#ifndef CF_TEST_CHECK_H
#define CF_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static unsigned long checks_run, checks_failed;

#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		checks_run++;                                                 \
		if (!(cond)) {                                                \
			checks_failed++;                                      \
			if (checks_failed <= 20) {                            \
				fprintf(stderr, "%s:%d: check failed: %s: ", \
					__FILE__, __LINE__, #cond);           \
				fprintf(stderr, __VA_ARGS__);                 \
				fputc('\n', stderr);                          \
			}                                                     \
		}                                                             \
	} while (0)

static inline int test_done(const char *name)
{
	printf("%s: %lu checks, %lu failed\n", name, checks_run, checks_failed);
	return checks_failed ? 1 : checks_run ? 0 : 1;
}

/* Hex of bytes, for messages; returns a static buffer (tests only). */
static inline const char *hexs(const void *p, long n)
{
	static char buf[4][2100];
	static int k;
	char *b = buf[k++ & 3];
	if (n < 0) {
		snprintf(b, 32, "<err %ld>", n);
		return b;
	}
	for (long i = 0; i < n && i < 1024; i++)
		sprintf(b + 2 * i, "%02x", ((const unsigned char *)p)[i]);
	if (n == 0)
		b[0] = 0;
	return b;
}

#endif
