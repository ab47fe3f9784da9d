#!/usr/bin/env bash
# No cheap call forces a full rescan (issue 16, finding 5).  A shared 1777
# +F directory of uid 65534 with many entries: its owner's RENAME_EXCHANGE,
# renames onto existing names, chmod, utimes and setxattr on it, and
# everyone's creates and removals through the mount must leave its index
# current, so later inexact lookups do not reread the directory.  Only a
# change made to its entries in the backing tree does.  Rebuilds are
# counted twice: by the index statistics (trusted.casefoldfs.index,
# "rebuilds N") and by the daemon's log, which names a fold-equal pair
# planted in the backing tree again at every rebuild.
CF_NEEDS_ROOT="a directory of uid 65534 on root's daemon (allow_other, chown)"
. "$(dirname "$0")/../lib/fs.sh"
command -v setpriv >/dev/null || skip "no setpriv"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3 (the users run it)"
count=${CF_INDEX_ENTRIES:-20000}

chmod 755 "$T"
mkdir "$B/big"
setfattr -n trusted.casefoldfs.casefold -v 1 "$B/big"
python3 -c '
import os, sys
for i in range(int(sys.argv[2])):
    open(os.path.join(sys.argv[1], "entry%06d" % i), "w").close()' "$B/big" "$count"
touch "$B/big/Pair" "$B/big/pair"
chown 65534:65534 "$B/big" && chmod 1777 "$B/big"
cfs_mount -o allow_other

stat_of() { getfattr --absolute-names --only-values -n trusted.casefoldfs.index "$M/big"; }
rebuilds() { stat_of | sed -n 's/.* rebuilds \([0-9]*\).*/\1/p'; }
logged() { grep -c 'stored names "[Pp]air" and "[Pp]air"' "$T/daemon.log"; }
# An inexact lookup: answered by the index, which is first revalidated.
probe() { [ -e "$M/big/ENTRY000001" ] || fail "lookup after $1"; }

probe "mounting"
[ "$(rebuilds)" = 1 ] || fail "first build: $(stat_of)"
[ "$(logged)" = 1 ] || fail "the fold-equal pair was not reported once: $(logged)"

as_nobody /usr/bin/python3 - "$M/big" <<'PY' || fail "the owner's operations"
import ctypes, os, sys
d = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
def exchange(a, b):
    if libc.renameat2(-100, a.encode(), -100, b.encode(), 2) != 0:
        raise OSError(ctypes.get_errno(), "renameat2 exchange")
p = lambda n: os.path.join(d, n)
for n in ("a", "b", "c"):
    open(p(n), "w").close()
for step in (
    lambda: exchange(p("a"), p("B")),        # exchange, through another spelling
    lambda: os.rename(p("a"), p("C")),       # onto an existing name
    lambda: os.chmod(d, 0o1775),
    lambda: os.utime(d, (1000000, 2000000)),
    lambda: os.utime(d),
    lambda: os.setxattr(d, "user.note", b"1"),
    lambda: os.chmod(d, 0o1777),
    lambda: os.mkdir(p("sub")),
    lambda: os.rmdir(p("SUB")),
    lambda: os.unlink(p("b")),
):
    step()
    os.stat(p("ENTRY000002"))               # inexact: uses the index
PY
probe "the owner's operations"
[ "$(rebuilds)" = 1 ] || fail "the owner's operations rebuilt the index: $(stat_of)"
[ "$(logged)" = 1 ] || { cat "$T/daemon.log" >&2; fail "the owner's operations rebuilt the index: pair logged $(logged) times, $(stat_of)"; }
[ -e "$M/big/C" ] && [ ! -e "$M/big/A" ] && [ ! -e "$M/big/B" ] || fail "the index is wrong after the renames"

# Attributes changed in the backing tree: the flag is reread, nothing else.
chmod 1770 "$B/big" && setfattr -n user.other -v 2 "$B/big"
probe "an outside chmod"
[ "$(rebuilds)" = 1 ] || fail "an outside attribute change rebuilt the index: $(stat_of)"

# The control: an entry made in the backing tree is a change of the
# listing; the next lookup rebuilds and finds it in any spelling.
touch "$B/big/Outside"
[ -e "$M/big/OUTSIDE" ] || fail "an entry made in the backing tree is not found"
[ "$(rebuilds)" = 2 ] || fail "an outside entry did not rebuild the index: $(stat_of)"
[ "$(logged)" = 2 ] || fail "the rebuild did not report the pair again: $(logged)"
kill -0 "$CFS_PID" || fail "the daemon died"
cfs_umount
echo "indexstamp: ok ($count entries)"
