#!/usr/bin/env bash
# Differential test: differential.scenario run under a real Linux kernel
# (ext4 with casefold, in a VM) and on casefoldfs must give the same
# transcript.  The VM runner is tests/vm/run-in-vm, which takes a script
# and files to copy into the VM's /data and prints the script's output;
# CF_KERNEL_RUNNER names another with the same contract.  With the kernel
# cached the test takes about 20 s; the first run downloads and caches it,
# about a minute and a half.  CF_DIFF_EDIT, a sed script, edits the
# kernel's transcript first: the differences an option makes by design
# (tests/fs/clientopts.sh).
. "$(dirname "$0")/../lib/fs.sh"

runner=${CF_KERNEL_RUNNER:-$CF_ROOT/tests/vm/run-in-vm}
[ -x "$runner" ] || skip "no kernel runner at $runner"
scenario=$CF_ROOT/tests/fs/differential.scenario
cf_cc_only -static -O2 -o "$T/probe" "$CF_ROOT/tests/fs/probe.c" ||
	skip "cannot link a static probe"

cat > "$T/vm.sh" <<'VM'
truncate -s 32M d.img; truncate -s 32M s.img
/usr/sbin/mke2fs -q -t ext4 -O casefold d.img
/usr/sbin/mke2fs -q -t ext4 -O casefold -E encoding=utf8,encoding_flags=strict s.img
mkdir -p /mnt/d /mnt/s
mount -o loop d.img /mnt/d && mount -o loop s.img /mnt/s || exit 1
rmdir /mnt/d/lost+found /mnt/s/lost+found
P=/data/probe
. /data/differential.scenario
(cd /mnt/d && phase_default)
(cd /mnt/s && phase_strict)
VM
"$runner" "$T/vm.sh" "$T/probe" "$scenario" >"$T/kernel.out" 2>"$T/runner.log" || {
	tail -n 20 "$T/runner.log"
	fail "the kernel VM run failed"
}

P=$T/probe
. "$scenario"
cfs_mount
(cd "$M" && phase_default) >"$T/casefoldfs.out"
cfs_umount
B=$T/strict
mkdir "$B"
cfs_mount -o strict_encoding
(cd "$M" && phase_strict) >>"$T/casefoldfs.out"
cfs_umount

[ -z "${CF_DIFF_EDIT:-}" ] || sed -i "$CF_DIFF_EDIT" "$T/kernel.out"
[ -n "${CF_SHOW:-}" ] && cat "$T/kernel.out"
diff -u "$T/kernel.out" "$T/casefoldfs.out" || fail "transcripts differ"
accel=$(sed -n 's/^run-in-vm: accelerator //p' "$T/runner.log")
echo "differential: $(grep -c '^\$' "$T/kernel.out") operations, identical transcripts" \
	"(kernel VM: ${accel:-not reported})"
