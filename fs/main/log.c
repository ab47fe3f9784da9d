/* The destinations of log.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "common/lowlevel.h"
#include "main/log.h"

static int log_fd = -1;          /* the file, or -1: syslog (or nothing) */
static char log_mount[PATH_MAX]; /* names the mount in each line of the file */

/* Messages are written for stderr: "casefoldfs: what\n". */
static const char *bare(char *msg)
{
	static const char prefix[] = "casefoldfs: ";

	msg[strcspn(msg, "\n")] = '\0';
	return strncmp(msg, prefix, sizeof(prefix) - 1) == 0 ? msg + sizeof(prefix) - 1 : msg;
}

/* syslog adds the name and the pid itself; libfuse's levels are its priorities. */
static void log_syslog(enum fuse_log_level level, const char *fmt, va_list ap)
{
	char msg[1024];

	if (vsnprintf(msg, sizeof(msg), fmt, ap) >= 0)
		syslog((int)level, "%s", bare(msg));
}

/* One write per line: daemons sharing the file never interleave within one. */
static void log_file(enum fuse_log_level level, const char *fmt, va_list ap)
{
	char msg[1024], line[1024 + PATH_MAX + 64], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int n;

	(void)level;
	if (vsnprintf(msg, sizeof(msg), fmt, ap) < 0)
		return;
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", localtime_r(&now, &tm));
	n = snprintf(line, sizeof(line), "%s casefoldfs[%ld] %s: %s\n", stamp, (long)getpid(),
		     log_mount, bare(msg));
	if (n > 0) {
		ssize_t w = write(log_fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);

		(void)w;        /* nowhere left to say that the log failed */
	}
}

/* Whether a system log accepts datagrams on /dev/log, as syslog(3) sends them. */
static bool syslog_listens(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = "/dev/log" };
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool ok = s >= 0 && connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0;

	if (s >= 0)
		close(s);
	return ok;
}

static int open_log(const char *path)
{
	return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
}

/* The file of a system without syslog: root's in /var/log, a user's in ~. */
static int default_file(char *path, size_t len)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (geteuid() == 0) {
		snprintf(path, len, "/var/log/casefoldfs.log");
	} else if (state && state[0] == '/') {
		mkdir(state, 0700);
		snprintf(path, len, "%s/casefoldfs.log", state);
	} else if (home && home[0] == '/') {
		snprintf(path, len, "%s/.local", home);
		mkdir(path, 0700);
		snprintf(path, len, "%s/.local/state", home);
		mkdir(path, 0700);
		snprintf(path, len, "%s/.local/state/casefoldfs.log", home);
	} else {
		return -1;
	}
	return open_log(path);
}

int log_choose(const char *logfile, const char *mountpoint)
{
	snprintf(log_mount, sizeof(log_mount), "%s", mountpoint);
	if (!logfile)
		return 0;
	log_fd = open_log(logfile);
	if (log_fd < 0) {
		fprintf(stderr, "casefoldfs: logfile %s: %s\n", logfile, strerror(errno));
		return -1;
	}
	return 0;
}

void log_detach(void)
{
	char path[PATH_MAX];

	if (log_fd < 0 && syslog_listens()) {
		openlog("casefoldfs", LOG_PID, LOG_DAEMON);
		fuse_set_log_func(log_syslog);
		return;
	}
	if (log_fd < 0) {
		log_fd = default_file(path, sizeof(path));
		if (log_fd < 0) {
			fprintf(stderr, "casefoldfs: no system log listens on /dev/log and no log "
				"file could be opened: messages are lost (give -o logfile=FILE)\n");
			return;
		}
		fprintf(stderr, "casefoldfs: no system log listens on /dev/log: messages go to "
			"%s\n", path);
	}
	fuse_set_log_func(log_file);
}
