#!/usr/bin/env bash
# tests/ mirrors fs/'s wings (issue 42): the suites of fs/kernel are in
# tests/kernel/, the tree's in tests/fs/, the view's in tests/view/, main's
# in tests/main/, and what they share in tests/lib/ (fs.sh, the attack
# stage, the model stress).  Fails if one of those folders is missing, or
# if a file in one of them sources, imports, runs or builds a file kept in
# another's folder: a piece two wings' suites need belongs in tests/lib/.
# Comments may name other suites; running a suite again by name (suites.sh's
# `again fs/stall`) is not reaching into its folder.
set -u
root=${CF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
# fs/ wing -> its folder of tests (fs/common has none: every mount runs it).
declare -A folder=([kernel]=kernel [tree]=fs [view]=view [main]=main)
status=0
for wing in "${!folder[@]}"; do
	[ -d "$root/fs/$wing" ] || { echo "FAIL: fs/$wing/ is gone: its tests/${folder[$wing]}/ has no wing"; status=1; }
	[ -d "$root/tests/${folder[$wing]}" ] ||
		{ echo "FAIL: fs/$wing/ has no folder of tests (tests/${folder[$wing]}/)"; status=1; }
done
[ -d "$root/tests/lib" ] || { echo "FAIL: no tests/lib/ for what the filesystem suites share"; status=1; }
for g in "${folder[@]}"; do
	others=$(printf '%s\n' "${folder[@]}" | grep -vx "$g" | paste -sd '|')
	# Lines that are not comments, naming another wing's folder as a path:
	# tests/OTHER/, ../OTHER/ or Python's "..", "OTHER".
	hits=$(grep -n -E -H -v '^[[:space:]]*#' "$root/tests/$g"/* 2>/dev/null |
		grep -E "(tests/|\.\./)($others)/|\"\.\.\", \"($others)\"")
	if [ -n "$hits" ]; then
		echo "FAIL: tests/$g/ reaches into another wing's tests (share it through tests/lib/):"
		sed "s#^$root/##; s/^/  /" <<<"$hits"
		status=1
	fi
done
[ "$status" = 0 ] && echo "tests/{kernel,fs,view,main}/ each reach only their own folder and tests/lib/"
exit $status
