/* The benchmark's inputs: name sets read from files, long strings, and the pairs to compare. */
#ifndef CF_BENCH_CORPUS_H
#define CF_BENCH_CORPUS_H

#include "bench.h"

/* One input set and the three kinds of pairs made from it. */
struct corpus {
	struct names names;
	struct pairs variant; /* a name and a case variant of it: equal, bytes differ */
	struct pairs same;    /* a name and a copy of it elsewhere: equal, bytes identical */
	struct pairs differ;  /* two names whose folds differ in the first byte */
	size_t skipped;       /* lines refused: empty, too long, invalid UTF-8 or (ascii) not ASCII */
	size_t no_variant;    /* names without a case variant (uncased, or not fold-equal) */
};

/*
 * Read one name per line from path: at most 255 bytes, valid UTF-8, and all
 * ASCII if ascii.  0, or -1 with a message on stderr.
 */
int corpus_read(struct corpus *c, const char *label, const char *path, int ascii);

/* At most n strings of at most size bytes made of the words of w joined by spaces. */
void corpus_join(struct corpus *c, const char *label, const struct names *w, size_t size,
		 size_t n);

/* Make c's three pair sets from its names.  0, or -1 with a message on stderr. */
int corpus_pair(struct corpus *c);

#endif
