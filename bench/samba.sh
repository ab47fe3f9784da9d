#!/bin/sh
# Samba serving a 100,000-entry directory: a name that is not there, asked
# through SMB, (a) on casefoldfs with "case sensitive = yes" (the filesystem
# matches names; smbd never scans) and (b) on the plain backing filesystem
# with Samba's own "case sensitive = no" (smbd lists the directory on every
# miss).  Also a hit in another case, the case every client makes.  One
# smbclient session per measurement runs N requests; figures are the session's
# time over N (connection set-up included, spread over the N requests), next
# to the same requests in a one-entry directory.
# smbd listens on 127.0.0.1 only, with a private configuration; it makes
# itself a session of its own (so it must not be started as a group leader).
set -u
O=${1:-build}
command -v smbd >/dev/null && command -v smbclient >/dev/null || { echo "no smbd/smbclient: skipped"; exit 0; }
ENTRIES=${CF_BENCH_SAMBA_ENTRIES:-100000}
N=${CF_BENCH_SAMBA_REQUESTS:-200}
REPS=${CF_BENCH_SAMBA_REPS:-7}
T=$(mktemp -d /var/tmp/cf-samba.XXXXXX)
B=$T/backing M=$T/mnt S=$T/samba
SMBD=
cleanup() {
	[ -n "$SMBD" ] && kill "$SMBD" 2>/dev/null && wait "$SMBD" 2>/dev/null
	fusermount3 -u "$M" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

mkdir -p "$B/ci" "$B/tiny" "$M" "$T/plain/big" "$T/plain/tiny"
# The big directories: the same names in both, created directly.
python3 - "$B/ci" "$T/plain/big" "$ENTRIES" <<'PY'
import os, sys
for d in sys.argv[1:3]:
    for i in range(int(sys.argv[3])):
        os.close(os.open(f"{d}/File-{i:07d}.Dat", os.O_CREAT | os.O_WRONLY, 0o644))
PY
: >"$B/tiny/x" && : >"$T/plain/tiny/x"
setfattr -n trusted.casefoldfs.casefold -v 1 "$B/ci" 2>/dev/null # the flag's backing form
"$O/casefoldfs" "$B" "$M" || exit 1
lsattr -d "$M/ci" 2>/dev/null | grep -q F || chattr +F "$M/ci" 2>/dev/null ||
	{ echo "cannot make the big directory casefolded (it is not empty): see fs/tree/CLIENTS.md"; exit 1; }

mkdir -p "$S"
{ tests/clients/smb-private "$S" && cat <<CONF; } >"$S/smb.conf" || exit 1
[cfs]
	path = $M
	guest ok = yes
	force user = root
	case sensitive = yes
[plain]
	path = $T/plain
	guest ok = yes
	force user = root
	case sensitive = no
CONF
port=$(cat "$S/port")
smbd --foreground -s "$S/smb.conf" >"$S/smbd.out" 2>&1 &
SMBD=$!
smb() { timeout 600 smbclient -s "$S/smb.conf" -p "$port" -N "//127.0.0.1/$1" -c "$2" >/dev/null 2>&1; }
i=0
until smb cfs ls; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat "$S/smbd.out"; smbclient -s "$S/smb.conf" -p "$port" -N //127.0.0.1/cfs -c ls; exit 1; }
	sleep 0.1
done

# N requests for one name in a directory, as one session: seconds.
session() { # share dir name
	cmds=
	j=0
	while [ $j -lt "$N" ]; do cmds="$cmds allinfo $2\\$3;"; j=$((j + 1)); done
	start=$(date +%s%N)
	smb "$1" "$cmds"
	echo $(( $(date +%s%N) - start ))
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# Interleaved repetitions; each cell is the median, in microseconds per request.
: >"$T/times"
r=0
while [ $r -lt "$REPS" ]; do
	for share in cfs plain; do
		echo "$share miss0 $(session $share tiny NotThere.txt)" >>"$T/times"
		echo "$share miss $(session $share big NotThere.txt)" >>"$T/times"
		echo "$share hit0 $(session $share tiny X)" >>"$T/times"
		echo "$share hit $(session $share big FILE-0049999.DAT)" >>"$T/times"
	done
	r=$((r + 1))
done
cell() { grep "^$1 $2 " "$T/times" | cut -d' ' -f3 | median; }
per() { echo $(( $(cell "$1" "$2") / N / 1000 )); } # share kind: µs per request
cm=$(per cfs miss) cm0=$(per cfs miss0) ch=$(per cfs hit) ch0=$(per cfs hit0)
pm=$(per plain miss) pm0=$(per plain miss0) ph=$(per plain hit) ph0=$(per plain hit0)
echo "SMB requests (smbclient allinfo over loopback), µs per request, $N requests a session,"
echo "median of $REPS interleaved sessions; in brackets the same in a 1-entry directory:"
echo
echo "| share | miss, $ENTRIES entries | hit in another case |"
echo "|---|--:|--:|"
echo "| casefoldfs +F, case sensitive = yes | $cm ($cm0) | $ch ($ch0) |"
echo "| plain directory, Samba case sensitive = no | $pm ($pm0) | $ph ($ph0) |"
echo
echo "Miss: Samba's own case-insensitivity takes $(awk -v a="$pm" -v b="$cm" 'BEGIN { printf "%.1f", a / b }')x" \
	"as long as casefoldfs with case sensitive = yes."
