/*
 * A one-line progress display on standard error: entries so far (of a
 * total, when known), entries per second and the current path.  It draws
 * only when standard error is a terminal, and at most ten times a second,
 * so calling it per directory costs a clock read.
 */
#ifndef CLI_PROGRESS_H
#define CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct cli_progress {
	bool on;          /* standard error is a terminal */
	bool drawn;       /* a line is on the screen */
	uint64_t total;   /* 0: unknown */
	struct timespec start, last;
};

/* Starts the clock; total is the number of entries expected, 0 if unknown. */
void cli_progress_init(struct cli_progress *p, uint64_t total);

/* Redraw if a tenth of a second has passed since the last drawing. */
void cli_progress_update(struct cli_progress *p, uint64_t done, const char *path);

/* Erase the line, so that other output starts on a clean line. */
void cli_progress_clear(struct cli_progress *p);

#endif
