#!/usr/bin/env bash
# Samba sharing a casefolded directory of casefoldfs with
# "case sensitive = yes": smbd passes names through unchanged and never
# scans directories, the filesystem matches them, and a Windows-style
# client opens files in any case.  smbd listens on 127.0.0.1 only, on a
# free port, with a private configuration and state under $T; it is
# stopped at exit (in a process group of its own: at shutdown it signals its
# whole group).
CF_NEEDS_ROOT="smbd runs as root (it serves each client as that client's user)"
. "$(dirname "$0")/lib.sh"
PATH=$PATH:/usr/sbin
command -v smbd >/dev/null && command -v smbclient >/dev/null || skip "no smbd or smbclient"
command -v python3 >/dev/null || skip "no python3"

cfs_mount
C=$M/share
casefolded "$C"
echo report >"$C/Report.TXT"
mkdir "$C/Docs" && echo notes >"$C/Docs/Notes.md"

S=$T/samba
mkdir -p "$S"
{ "$CF_ROOT/tests/clients/smb-private" "$S" && cat <<CONF; } >"$S/smb.conf" || fail "smb.conf"
[share]
	path = $C
	read only = no
	guest ok = yes
	force user = root
	case sensitive = yes
	preserve case = yes
	short preserve case = yes
CONF
smbd --foreground --debug-stdout -s "$S/smb.conf" >"$S/smbd.out" 2>&1 &
SMBD_PID=$!
stop_smbd() { kill "$SMBD_PID" 2>/dev/null && wait "$SMBD_PID" 2>/dev/null; }
at_exit stop_smbd

port=$(cat "$S/port")
smb() { timeout 20 smbclient -s "$S/smb.conf" -p "$port" -N "//127.0.0.1/share" -c "$1" 2>&1; }
for _ in $(seq 100); do
	smb ls >/dev/null && break
	kill -0 "$SMBD_PID" 2>/dev/null || { cat "$S/smbd.out" >&2; fail "smbd exited"; }
	sleep 0.1
done
smb ls >"$T/ls" || { cat "$T/ls" "$S/smbd.out" >&2; fail "smbclient cannot list the share"; }
grep -q 'Report.TXT' "$T/ls" && grep -q 'Docs' "$T/ls" || fail "listing: $(cat "$T/ls")"

# Opening in any case: one file.
cd "$T" || fail "cd"
smb "get REPORT.txt got1; get report.txt got2; get DOCS\\NOTES.MD got3" >"$T/get" ||
	fail "get in another case: $(cat "$T/get")"
[ "$(cat got1 got2 got3)" = "$(printf 'report\nreport\nnotes')" ] || fail "got the wrong contents"

# Writing through another spelling replaces the file and keeps its name;
# a new file keeps the client's spelling.
echo changed >new.txt
smb "put new.txt REPORT.TXT; put new.txt NewFile.Txt; mkdir SubDir; put new.txt subdir\\X.txt" >"$T/put" ||
	fail "put: $(cat "$T/put")"
[ "$(names "$B/share" | tr '\n' ' ')" = "Docs NewFile.Txt Report.TXT SubDir " ] ||
	fail "backing tree: $(names "$B/share")"
[ "$(cat "$C/report.txt")" = changed ] && [ -f "$B/share/SubDir/X.txt" ] || fail "put did not land"
# A case-only rename from the client: the share reports success, the name
# stays (the filesystem's rule, as on ext4).
smb "rename newfile.txt NEWFILE.TXT" >"$T/ren"
smb "get NEWFILE.txt got4" >/dev/null && [ "$(cat got4)" = changed ] || fail "rename lost the file: $(cat "$T/ren")"
# A miss is a miss.
smb "get nothere.txt got5" | grep -q NT_STATUS_OBJECT_NAME_NOT_FOUND || fail "a missing name was found"

stop_smbd
cfs_umount
echo "samba with case sensitive = yes on casefoldfs: ok"
