/* The progress line.  \r and "erase to end of line" redraw it in place. */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "progress.h"

static double seconds(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void cli_progress_init(struct cli_progress *p, uint64_t total)
{
	*p = (struct cli_progress){ .on = isatty(STDERR_FILENO), .total = total };
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	p->last = p->start;
}

void cli_progress_update(struct cli_progress *p, uint64_t done, const char *path)
{
	struct winsize ws;
	struct timespec now;
	char head[128];
	double rate;
	size_t cols = 80, plen = strlen(path);
	int n;

	if (!p->on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (p->drawn && seconds(&p->last, &now) < 0.1)
		return;
	p->last = now;
	rate = done / (seconds(&p->start, &now) + 1e-9);
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		cols = ws.ws_col;
	if (p->total)
		n = snprintf(head, sizeof(head), "%3u%% %llu/%llu entries, %.0f/s ",
			     (unsigned)(done * 100 / p->total), (unsigned long long)done,
			     (unsigned long long)p->total, rate);
	else
		n = snprintf(head, sizeof(head), "%llu entries, %.0f/s ",
			     (unsigned long long)done, rate);
	fprintf(stderr, "\r\033[K%s", head);
	/* The end of the path is the informative part: keep it. */
	if ((size_t)n + plen + 1 > cols) {
		size_t room = cols > (size_t)n + 4 ? cols - (size_t)n - 4 : 0;

		path += plen - room;
		while ((*path & 0xC0) == 0x80)
			path++;
		fputs("...", stderr);
	}
	/* A control character in a name must not break the line. */
	for (; *path; path++)
		putc((unsigned char)*path < 0x20 ? '?' : *path, stderr);
	p->drawn = true;
}

void cli_progress_clear(struct cli_progress *p)
{
	if (p->drawn)
		fputs("\r\033[K", stderr);
	p->drawn = false;
}
