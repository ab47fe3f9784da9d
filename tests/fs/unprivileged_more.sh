#!/usr/bin/env bash
# The second half of the uid-65534 run (unprivileged.sh, which says how it
# runs and which suites stay out): the other suites an ordinary user can
# run, split off so that each half stays within tests/run's 900 s.
CF_UNPRIV_SUITES=${CF_UNPRIV_SUITES:-"view/copyup view/indexmem view/links view/twins view/inodes
	fs/case_rename fs/clientopts fs/coherence fs/fsxattr main/messages fs/nfs fs/pathlocators
	fs/proton fs/variants clients/wine convert/basic convert/collisions convert/refusals
	view/model view/restack fs/stress"}
export CF_UNPRIV_SUITES
exec "$(dirname "$0")/unprivileged.sh" "$@"
