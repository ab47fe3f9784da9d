#!/usr/bin/env bash
# What a creation through the view makes, and what a refused one leaves
# (issue 33): mknod of a device 0/0 is EPERM (it is the view's whiteout:
# at the next mount it would hide a lower name), a set-group-ID directory
# gives new entries its group and new directories its bit (as ext4 and
# overlayfs), and a name whose path the view cannot reach (PATH_MAX) is
# refused before anything is placed in the upper layer.
CF_NEEDS_ROOT="device nodes (mknod c 1 3), another group (chgrp 4242) and a second user in the view (allow_other)"
. "$(dirname "$0")/lib.sh"

L=$T/low U=$T/upper W=$T/work
mkdir -p "$L/d" "$U" "$W"
echo lower >"$L/d/dev"
opts="lowerdir=$L,upperdir=$U,workdir=$W,allow_other"
chmod 755 "$T"
ovl_mount "$opts" overlay

# ---- mknod c 0 0
out=$(mknod "$M/d/dev" c 0 0 2>&1) && fail "mknod over a lower name made something"
out=$(mknod "$M/d/zero" c 0 0 2>&1) && fail "mknod c 0 0 succeeded"
[[ $out == *"not permitted"* ]] || fail "mknod c 0 0: $out (not EPERM)"
[ ! -e "$U/d/zero" ] || fail "mknod c 0 0 left $(stat -c %F "$U/d/zero") in the upper layer"
mknod "$M/d/null" c 1 3 || fail "mknod c 1 3"
[ "$(stat -c %t:%T "$M/d/null")" = 1:3 ] || fail "c 1 3 is $(stat -c %t:%T "$M/d/null")"

# ---- set-group-ID directories
mkdir "$M/sg" && chgrp 4242 "$M/sg" && chmod 2775 "$M/sg" || fail "setgid dir"
touch "$M/sg/f" && mkdir "$M/sg/sub" || fail "create in setgid dir"
[ "$(stat -c %g "$M/sg/f")" = 4242 ] || fail "file in setgid dir has group $(stat -c %g "$M/sg/f")"
[ "$(stat -c %g:%A "$M/sg/sub")" = 4242:drwxr-sr-x ] ||
	fail "dir in setgid dir: $(stat -c %g:%A "$M/sg/sub")"
[ "$(stat -c %g "$U/sg/f")" = 4242 ] || fail "the upper file's group"
setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null && {
	chmod 777 "$M/sg"
	setpriv --reuid=65534 --regid=65534 --clear-groups mkdir "$M/sg/user" ||
		fail "an ordinary user's mkdir in a setgid dir"
	[ "$(stat -c %u:%g:%A "$M/sg/user")" = 65534:4242:drwxr-sr-x ] ||
		fail "user's dir in setgid dir: $(stat -c %u:%g:%A "$M/sg/user")"
}

# ---- paths past PATH_MAX: refused, nothing left
cd "$M/d" || fail cd
comp=$(printf 'c%.0s' $(seq 254))
for _ in $(seq 16); do mkdir "$comp" && cd "$comp" || fail "mkdir -p chain"; done
# "d/" + 16 x 255 = 4,082 bytes; a name of 255 more is past 4,095.
long=$(printf 'n%.0s' $(seq 255))
for op in "touch $long" "mkdir $long" "mkfifo $long" "ln -s t $long" "mknod $long c 1 3"; do
	out=$($op 2>&1) && fail "$op succeeded past PATH_MAX"
	[[ $out == *"too long"* ]] || fail "$op: $out"
done
echo x >short || fail "a short name at that depth"
out=$(mv short "$long" 2>&1) && fail "rename to a name past PATH_MAX succeeded"
[[ $out == *"too long"* ]] || fail "rename past PATH_MAX: $out"
[ "$(ls)" = short ] || fail "left behind in the view: $(ls | cut -c1-20)"
cd / || fail cd
deep=$(find "$U" -name "$long*" | head -1)
[ -z "$deep" ] || fail "left behind in the upper layer: ${deep:0:60}..."
[ -z "$(ls -A "$W/work")" ] || fail "left in the work directory: $(ls -A "$W/work")"
rm -rf "${M:?}/d/$comp" || fail "rm -rf of the chain"
cfs_umount
ovl_mount "$opts" overlay
[ "$(cat "$M/d/dev")" = lower ] || fail "the lower name after a remount"
[ "$(names "$M/d")" = "dev null" ] || [ "$(names "$M/d" | tr '\n' ' ')" = "dev null " ] ||
	fail "d after a remount: $(names "$M/d" | tr '\n' ' ')"
cfs_umount
echo "create: c 0 0 refused, setgid inherited, nothing left by ENAMETOOLONG"
