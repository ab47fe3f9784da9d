# Sourced by the tests/ext4/*.sh scripts (not itself a test): the helpers of
# tests/cli, plus the e2fsprogs tools the ext4 tests compare against.  The
# images are made in the test's temporary directory and removed with it.
. "$CF_ROOT/tests/cli/lib.sh"

for tool in mke2fs debugfs dumpe2fs; do
	if ! command -v "$tool" >/dev/null && [ ! -x "/sbin/$tool" ]; then
		skip "$tool not found (e2fsprogs)"
	fi
done
PATH=$PATH:/sbin:/usr/sbin

# mkimage FILE SIZE MKE2FS-OPTION...: a fresh image, quietly.
mkimage() {
	local file=$1 size=$2
	shift 2
	rm -f "$file"
	truncate -s "$size" "$file" && mke2fs -q -F "$@" "$file" >/dev/null 2>&1 ||
		fail "mke2fs $* failed"
}

# dbg IMAGE COMMAND-FILE: run debugfs commands read-write, quietly.
dbg() {
	debugfs -w -f "$2" "$1" >/dev/null 2>&1
}

# addflags IMAGE PATH BITS: OR BITS into the inode flags of PATH (debugfs's
# set_inode_field replaces them all, extents and inline-data bits included).
addflags() {
	local old
	old=$(debugfs -R "stat $2" "$1" 2>/dev/null | sed -n 's/.*Flags: \(0x[0-9a-f]*\).*/\1/p')
	debugfs -w -R "set_inode_field $2 flags $(printf '0x%x' $((old | $3)))" "$1" >/dev/null 2>&1
}
CASEFOLD_FL=0x40000000
