#!/usr/bin/env bash
# No recursion whose depth a user controls (issue 24, finding 1).  With path
# locators, reopening a directory needs its parent's descriptor, and the
# parent's its parent's: a daemon that did that by recursion overflowed its
# stack on a directory 40,000 levels deep once the descriptor cache had
# evicted the ancestors.  Here uid 65534 makes a chain of CF_DEEP_LEVELS
# (100,000) directories through the mount, one mkdir and chdir per level,
# stats files elsewhere until the 16-slot cache holds none of the chain, and
# looks up and creates a name at the bottom: against root's daemon with path
# locators and with file handles, and against uid 65534's own daemon.  The
# daemon runs with an 8 MiB stack (its threads' too), whatever the shell's.
CF_NEEDS_ROOT="root's daemon walked by uid 65534 (setpriv), then uid 65534's own"
CF_USERS_MOUNT=1  # its last part mounts as uid 65534
. "$(dirname "$0")/../lib/fs.sh"
command -v setpriv >/dev/null || skip "no setpriv"
levels=${CF_DEEP_LEVELS:-100000}
export CF_DAEMON_STACK=$((8 * 1024 * 1024))

# walk: as uid 65534, down the chain under $M/atk/deep (made where missing),
# then the cache is emptied by stats of $M/pub/f*, then at the bottom a
# lookup of a missing name and a creation.  Prints the bottom's answers.
walk() {
	as_nobody perl -e '
		use strict; use Errno;
		my ($top, $pub, $levels) = @ARGV;
		chdir $top or die "chdir $top: $!\n";
		for my $i (1 .. $levels) {
			mkdir "d" or $!{EEXIST} or die "mkdir at level $i: $!\n";
			chdir "d" or die "chdir at level $i: $!\n";
		}
		for (1 .. 3) { for my $f (glob "$pub/f*") { lstat $f or die "stat $f: $!\n" } }
		print lstat("x") ? "found" : $!{ENOENT} ? "ENOENT" : "lstat: $!", "\n";
		open(my $fh, ">", "y") or die "create at the bottom: $!\n";
		close $fh;
		print -e "y" ? "created\n" : "lost\n";
	' "$M/atk/deep" "$M/pub" "$levels"
}

# check WHAT: the walk succeeds and the daemon is still there.
check() {
	local out start=$SECONDS
	out=$(walk 2>&1)
	echo "$1: $levels levels in $((SECONDS - start)) s: $(echo "$out" | tr '\n' ' ')"
	[ "$out" = "$(printf 'ENOENT\ncreated')" ] || fail "$1: $out"
	mounted && as_nobody stat "$M/pub" >/dev/null || fail "$1: the mount is gone"
	kill -0 "$CFS_PID" 2>/dev/null || fail "$1: the daemon died"
}

chmod 755 "$T"
mkdir -p "$B/atk/deep" "$B/pub"
chown -R 65534:65534 "$B/atk"
for i in $(seq 64); do : > "$B/pub/f$i"; done

# Root's daemon, path locators: the tree is made here.
cfs_mount -o allow_other,nohandles,fd_cache=16,flagstore=user
check "root's daemon, path locators"
cfs_umount
# Root's daemon, file handles where it can: a cold cache walks the chain.
cfs_mount -o allow_other,fd_cache=16
check "root's daemon, file handles"
cfs_umount
# uid 65534's own daemon: path locators always.  It must own the tree's top.
fuse_for_users
chown 65534:65534 "$B" "$M"
CFS_AS=65534 cfs_mount -o fd_cache=16
check "uid 65534's daemon"
CFS_AS=65534 cfs_umount
