/*
 * Where the messages of a detached daemon go (fuse_daemonize points its
 * stderr at /dev/null): -o logfile=FILE if given; else syslog, when a
 * system log (journald, rsyslog, ...) listens on /dev/log; else a file a
 * user can read, named on stderr at mount time: /var/log/casefoldfs.log
 * for root, $XDG_STATE_HOME/casefoldfs.log (~/.local/state) for a user.
 * With -f the messages stay on stderr.
 */
#ifndef CFS_LOG_H
#define CFS_LOG_H


/*
 * Before mounting: opens -o logfile (NULL: none), and records the mount
 * point that names the mount in the file's lines.  An unusable logfile:
 * says why on stderr and returns -1.
 */
int log_choose(const char *logfile, const char *mountpoint);

/*
 * Just before detaching, stderr still open: from now on messages go to the
 * logfile, or syslog, or the default file, which it names on stderr.
 */
void log_detach(void);

#endif /* CFS_LOG_H */
