#!/usr/bin/env bash
# run-in-vm and a KVM that is there but does not work (a machine that is
# itself a VM): a fake qemu in front of the real one plays each way KVM was
# seen to fail — qemu reports "KVM internal error" and stays paused; qemu
# hangs without a word; qemu cannot start KVM and exits — and one way it
# works.  Each run must end with the script's own output and status, well
# before the VM timeout, and say which accelerator ran it; the fake records
# that KVM was tried first.
# tests/run: alone (a TCG VM must boot within the 10 s KVM probe)
. "$(dirname "$0")/../lib.sh"
runner=$CF_ROOT/tests/vm/run-in-vm
real=$(command -v qemu-system-x86_64) || skip "no qemu-system-x86_64"
T=$(mktemp -d /tmp/casefold-fallback.XXXXXX) || exit 1
at_exit "rm -rf '$T'"

# The fake: with KVM requested it behaves as $FAKE_KVM says; otherwise, and
# for a working KVM, it runs the real qemu under TCG (no KVM here).
cat >"$T/qemu" <<'FAKE'
#!/bin/sh
case " $* " in
*" -accel kvm "*)
	echo kvm >>"$FAKE_LOG"
	case $FAKE_KVM in
	paused)
		echo 'KVM internal error. Suberror: 1' >&2
		echo 'emulation failure' >&2
		exec sleep 600 ;;
	silent) exec sleep 600 ;;
	exits)
		echo 'Could not access KVM kernel module: No such file or directory' >&2
		exit 1 ;;
	works)
		out=
		for a in "$@"; do
			case $a in kvm) a=tcg ;; host) a=max ;; esac
			out="$out '$a'"
		done
		eval "set -- $out" ;;
	esac ;;
*) echo tcg >>"$FAKE_LOG" ;;
esac
exec "$REAL_QEMU" "$@"
FAKE
chmod +x "$T/qemu"

cat >"$T/script.sh" <<'VM'
echo "inside $(uname -r)"
echo "to stderr" >&2
exit 7
VM

# try KVM_MODE WANT_ACCEL WANT_TRIES
try() {
	local mode=$1 want=$2 tries=$3 rc start=$SECONDS
	: >"$T/tries"
	FAKE_KVM=$mode FAKE_LOG=$T/tries REAL_QEMU=$real CF_VM_QEMU=$T/qemu CF_VM_ACCEL=kvm \
		CF_VM_KVM_PROBE=10 CF_VM_TIMEOUT=240 \
		"$runner" "$T/script.sh" >"$T/out" 2>"$T/err"
	rc=$?
	local took=$((SECONDS - start))
	[ "$rc" = 7 ] || { cat "$T/err" >&2; fail "$mode: exit status $rc, not the script's 7"; }
	grep -qx 'inside 6\..*' "$T/out" || fail "$mode: stdout $(cat "$T/out")"
	grep -qx 'to stderr' "$T/err" || fail "$mode: the script's stderr is lost"
	grep -qx "run-in-vm: accelerator $want" "$T/err" || fail "$mode: not reported as $want"
	[ "$(tr '\n' ' ' <"$T/tries")" = "$tries" ] || fail "$mode: qemu runs were '$(cat "$T/tries")'"
	[ "$took" -lt 200 ] || fail "$mode: took ${took}s"
	echo "KVM $mode: $want in ${took}s"
}

try works kvm "kvm "
try paused tcg "kvm tcg "
grep -q 'KVM failed (KVM internal error' "$T/err" || fail "paused: the KVM error is not reported"
try silent tcg "kvm tcg "
grep -q 'KVM failed (no boot within 10s)' "$T/err" || fail "silent: no reason given"
try exits tcg "kvm tcg "
grep -q 'Could not access KVM' "$T/err" || fail "exits: qemu's message is not shown"
# No KVM requested and none usable: straight to TCG.
if ! [ -w /dev/kvm ]; then
	: >"$T/tries"
	FAKE_KVM=paused FAKE_LOG=$T/tries REAL_QEMU=$real CF_VM_QEMU=$T/qemu CF_VM_ACCEL=auto \
		"$runner" "$T/script.sh" >"$T/out" 2>"$T/err"
	[ "$(tr '\n' ' ' <"$T/tries")" = "tcg " ] || fail "without /dev/kvm KVM was tried"
	grep -qx 'run-in-vm: accelerator tcg' "$T/err" || fail "without /dev/kvm: not tcg"
fi
echo "run-in-vm falls back to TCG from a KVM that fails"
