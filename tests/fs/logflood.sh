#!/usr/bin/env bash
# Repeated refusals cannot flood the log (issue 34, finding 5): under
# -o casefold_nonempty, chattr +F on a directory holding Save.dat and
# save.dat is refused (ENOTEMPTY) with one log line that names the pair,
# and an attacker repeating it as fast as it can for 3 s adds no other line
# (at most one per directory per minute; 4,000-7,500 lines before).
# Against root's daemon (attacked by uid 65534), then a user's daemon
# (uid 65534, allow_other; attacked by uid 4242).
set -u
CF_NEEDS_ROOT="root's daemon and uid 65534's, each attacked by another user (setpriv to uids 65534 and 4242)"
. "$(dirname "$0")/../lib/attack.sh"

chmod 755 "$T"
mkdir "$B/atk" && touch "$B/atk/Save.dat" "$B/atk/save.dat"
chown -R $attacker_id "$B/atk"
victim_mount casefold_nonempty
before=$(wc -l < "$T/daemon.log")
out=$(attacker chattr +F "$M/atk" 2>&1) && fail "chattr +F on fold-equal names worked"
echo "$out" | grep -q "not empty" || fail "not ENOTEMPTY: $out"
tries=$(attacker bash -c 'n=0; end=$((SECONDS + 3)); while [ $SECONDS -lt $end ]; do
	chattr +F "$1" 2>/dev/null; n=$((n + 1)); done; echo $n' - "$M/atk")
lines=$(($(wc -l < "$T/daemon.log") - before))
echo "$mode's daemon: $((tries + 1)) refused chattr +F in 3 s, $lines log lines"
grep -q '"Save.dat" and "save.dat"\|"save.dat" and "Save.dat"' "$T/daemon.log" ||
	fail "the refusal does not name the pair: $(cat "$T/daemon.log")"
[ "$tries" -ge 20 ] || fail "only $tries attempts: the attack did not run"
[ "$lines" = 1 ] || fail "$lines log lines for $((tries + 1)) refusals: $(tail -5 "$T/daemon.log")"
lsattr -d "$B/atk" 2>/dev/null | grep -q '^[^ ]*F' && fail "the refused flag is set"
victim_done
