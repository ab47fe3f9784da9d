#!/usr/bin/env bash
# Issue 21's options against the kernel's transcript (fs/tree/CLIENTS.md, "Clients
# beyond ext4"): with casefold_nonempty the differential scenario runs as on
# ext4 (its chattr +F calls are on empty directories, where the option
# changes nothing); with case_rename its one case-only rename, cf/Foo to
# cf/FOO, stores the new spelling, so every later listing shows FOO where
# ext4's shows Foo — and nothing else may differ.  Then suites run again
# with both options on, the model suites among them (stress_model.py reads
# CF_MOUNT_OPTS); flags.sh, proton.sh and
# case_rename.sh test the options themselves, on and off.
set -u
. "$(dirname "$0")/../lib/suites.sh"
status=77
record() { # again's status: any failure fails, all skipped skips
	case $1 in
	0) [ "$status" = 1 ] || status=0 ;;
	77) ;;
	*) status=1 ;;
	esac
}
export CF_MOUNT_OPTS="-o casefold_nonempty"
again fs/differential; record $?
export CF_MOUNT_OPTS="-o case_rename" CF_DIFF_EDIT='s/^  Foo$/  FOO/'
again fs/differential; record $?
unset CF_DIFF_EDIT
export CF_MOUNT_OPTS="-o case_rename,casefold_nonempty"
again fs/lookup fs/links fs/cache fs/hostile; record $?
# The model with both rules (stress_model.py: when a respell happens).
again fs/stress_model fs/kill_stress; record $?
exit "$status"
