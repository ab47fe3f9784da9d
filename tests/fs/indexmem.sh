#!/usr/bin/env bash
# The name indexes' memory is bounded (issue 24, finding 4): 200,000 names
# of 250 bytes in 20 casefolded directories, each looked up by another
# spelling (which builds the directory's index: ~3.2 MB for 10,000 such
# names), with -o index_mem=8: the stats xattr must show the indexes'
# memory within the bound plus the one index in use, indexes emptied to
# stay there, and every lookup still right — the first directory's index
# rebuilt when it is needed again.  Without the bound the same walk kept
# ~62 MB (the issue's 0.3 KB per name).
. "$(dirname "$0")/../lib/fs.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY"
dirs=${CF_INDEXMEM_DIRS:-20} per=${CF_INDEXMEM_PER:-10000} mib=8

# Made in the backing tree, flagged +F there: the test is the daemon's memory.
"$PY" - "$B" "$dirs" "$per" "$CFS_XATTRS" <<'PY' || fail "backing tree"
import os, sys
b, dirs, per, xa = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
for d in range(dirs):
    p = os.path.join(b, "d%02d" % d)
    os.mkdir(p)
    os.setxattr(p, xa + "casefold", b"1")
    for i in range(per):
        os.close(os.open(os.path.join(p, "Name%06d" % i + "x" * 240), os.O_CREAT | os.O_WRONLY))
PY
cfs_mount -o index_mem=$mib
stat_of() { getfattr --absolute-names --only-values -n "${CFS_XATTRS}stats" "$M"; }
field() { echo "$1" | sed -n "s/.* $2 \([0-9]*\).*/\1/p"; }
rebuilds() {
	getfattr --absolute-names --only-values -n "${CFS_XATTRS}index" "$M/$1" |
		sed -n 's/.*rebuilds \([0-9]*\).*/\1/p'
}
big=$(printf 'x%.0s' $(seq 240) | tr x X)
peak=0
for d in $(seq 0 $((dirs - 1))); do
	d=d$(printf %02d "$d")
	# Another spelling: the exact-bytes probe misses, the index answers.
	[ -e "$M/$d/NAME000007$big" ] || fail "$d: inexact lookup"
	s=$(stat_of)
	b=$(field "$s" index_bytes)
	[ "$b" -gt "$peak" ] && peak=$b
done
s=$(stat_of)
limit=$(field "$s" index_limit) ev=$(field "$s" index_evictions)
echo "after $dirs x $per names of 250 bytes: $s (peak $peak)"
rss=$(sed -n 's/VmRSS:\s*//p' "/proc/$CFS_PID/status" 2>/dev/null)
echo "daemon's VmRSS (ASan's heap, not the bound): $rss"
[ "$limit" = $((mib << 20)) ] || fail "index_limit $limit"
[ "$ev" -gt 0 ] || fail "nothing evicted"
# The bound, plus at most the index in use (a 10,000-name index: < 4 MiB).
[ "$peak" -le $(((mib + 4) << 20)) ] || fail "index memory $peak over the bound"
# The first directory again: its index was emptied (built once by the
# first lookup, so a second build shows the eviction), and is rebuilt.
[ -e "$M/d00/nAME000123$big" ] || fail "d00: inexact lookup after eviction"
[ "$(rebuilds d00)" -ge 2 ] || fail "d00's index was not rebuilt: $(rebuilds d00)"
[ -e "$M/d00/NAME$(printf %06d $((per + 1)))$big" ] && fail "d00: a name that is not there"
cfs_umount
