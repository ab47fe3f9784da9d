#!/bin/sh
# Benchmark section "transport" (issue 30): the request loop and what the
# kernel's newer protocol gives, each against its peer in the same run.
#  1. A do-nothing daemon (bench/fsnull) on libfuse 3.14's loop and on
#     fs/kernel's, in interleaved rounds: the first stat of each of N names
#     (one LOOKUP each) and the second (one GETATTR each).
#  2. Sequential I/O of one file through casefoldfs with passthrough (root's
#     default), with -o nopassthrough, and on the backing directory: a write,
#     then after a remount (the mount's own page cache empty, the backing
#     file's pages cached) a first and a second read.
#  3. A stopped daemon (SIGSTOP) with -o request_timeout=15: how long a
#     caller waits for its error.
#  4. FUSE over io_uring: casefoldfs with -o uring (requests by io_uring) and
#     the same daemon by default (read(2) of /dev/fuse), in interleaved
#     rounds, each on a fresh mount: the first stat of each of N names (one
#     LOOKUP each), then open + read + close of each (4 KiB files).  The
#     fuse module's enable_uring is set for this part and put back after.
# Usage: bench/transport.sh BUILD_DIR (as root).  Knobs:
#   CF_TRANSPORT_ROUNDS=7  CF_TRANSPORT_NAMES=20000  (the loops, io_uring)
#   CF_TRANSPORT_IO_ROUNDS=3  CF_TRANSPORT_MIB=1024   (sequential I/O)
set -eu
O=${1:-build}
ROUNDS=${CF_TRANSPORT_ROUNDS:-7}
NAMES=${CF_TRANSPORT_NAMES:-20000}
MIB=${CF_TRANSPORT_MIB:-1024}
IO_ROUNDS=${CF_TRANSPORT_IO_ROUNDS:-3}

. bench/prelude.sh
prelude "mounts" fusermount3
prelude_build "$O" "${CF_FSBENCH_DAEMON:-}" "$O/bench/fsnull"
NULLFS=$O/bench/fsnull

TMP=${TMPDIR:-/var/tmp}
T=$(mktemp -d "$TMP/casefold-transport.XXXXXX")
B=$T/backing
M=$T/mnt
R=$T/records          # KIND PEER VALUE
mkdir "$B" "$M"
: > "$R"
PID=
URING=/sys/module/fuse/parameters/enable_uring
URING_WAS=
cleanup() {
	[ -z "$URING_WAS" ] || echo "$URING_WAS" > "$URING"
	if mounted "$M"; then umount "$M" 2>/dev/null || umount -l "$M" || :; fi
	[ -z "$PID" ] || { kill -CONT "$PID" 2>/dev/null; kill "$PID" 2>/dev/null || :; }
	rm -rf "$T"
}
trap cleanup EXIT

unmount() { umount "$M"; wait "$PID" || die "the daemon exited with status $?"; PID=; }
value() { "$@" | awk -v k="$V" '$1 == k { print $2 }'; }

# 1. The loops, alternating which goes first.
for round in $(seq "$ROUNDS"); do
	if [ $((round % 2)) = 1 ]; then loops="libfuse fk"; else loops="fk libfuse"; fi
	for loop in $loops; do
		"$NULLFS" "$loop" "$M" & PID=$!
		wait_mount "$M" "$PID"
		V=per
		echo "lookup $loop $(value "$F" statall exact "$M" "$NAMES")" >> "$R"
		echo "getattr $loop $(value "$F" statall exact "$M" "$NAMES")" >> "$R"
		unmount
	done
done

# 2. Sequential I/O.
mount_cfs() { "$CFS" -f "$@" "$B" "$M" 2>>"$T/daemon.log" & PID=$!; wait_mount "$M" "$PID"; }
for round in $(seq "$IO_ROUNDS"); do
	for peer in native passthrough daemon; do
		case $peer in
		native) dir=$B ;;
		passthrough) mount_cfs; dir=$M ;;
		daemon) mount_cfs -o nopassthrough; dir=$M ;;
		esac
		V=mbps
		echo "write $peer $(value "$F" write "$dir/io-$peer" "$MIB")" >> "$R"
		if [ "$peer" != native ]; then
			unmount
			if [ "$peer" = passthrough ]; then mount_cfs; else mount_cfs -o nopassthrough; fi
		fi
		echo "read1 $peer $(value "$F" read "$dir/io-$peer")" >> "$R"
		echo "read2 $peer $(value "$F" read "$dir/io-$peer")" >> "$R"
		[ "$peer" = native ] || unmount
		rm -f "$B/io-$peer"
	done
done
mount_cfs
passthrough=$(getfattr --only-values -n trusted.casefoldfs.stats "$M" 2>/dev/null |
	tr ' ' '\n' | awk 'p { print; exit } $0 == "passthrough" { p = 1 }')
timeouts=$(getfattr --only-values -n trusted.casefoldfs.stats "$M" 2>/dev/null |
	grep -c "init [a-z0-9_,]*request_timeout" || :)
unmount

# 3. A stopped daemon.
waited=
if [ "$timeouts" = 1 ]; then
	mount_cfs -o request_timeout=15
	kill -STOP "$PID"
	start=$(date +%s%N)
	stat "$M/never-looked-up" > /dev/null 2>&1 || :
	waited=$(( ($(date +%s%N) - start) / 1000000 ))
	kill -CONT "$PID"
	wait "$PID" || :
	PID=
	umount "$M" 2>/dev/null || umount -l "$M"
fi

# 4. io_uring against read(2), the same daemon.
uring=
if [ -w "$URING" ]; then
	URING_WAS=$(cat "$URING")
	echo Y > "$URING"
	mkdir "$B/u"
	"$F" create -s 4096 "$B/u" "$NAMES" > /dev/null
	mount_cfs -o uring
	uring=$(getfattr --only-values -n trusted.casefoldfs.stats "$M" 2>/dev/null |
		tr ' ' '\n' | awk 'p { print; exit } $0 == "io_uring" { p = 1 }')
	unmount
	for round in $(seq "$ROUNDS"); do
		if [ $((round % 2)) = 1 ]; then peers="uring read"; else peers="read uring"; fi
		for peer in $peers; do
			if [ "$peer" = uring ]; then mount_cfs -o uring; else mount_cfs; fi
			V=per
			echo "ustat $peer $(value "$F" statall exact "$M/u" "$NAMES")" >> "$R"
			unmount
			if [ "$peer" = uring ]; then mount_cfs -o uring; else mount_cfs; fi
			V=files_per_s
			echo "uopen $peer $(value "$F" readall "$M/u" "$NAMES" 4096)" >> "$R"
			unmount
		done
	done
	echo "$URING_WAS" > "$URING"
	URING_WAS=
fi

median() { awk -v k="$1" -v p="$2" '$1 == k && $2 == p { print $3 }' "$R" | sort -g |
	awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
echo "A do-nothing daemon (bench/fsnull), $NAMES names, medians of $ROUNDS interleaved rounds:"
echo
echo "| request | libfuse 3.14's loop | fs/kernel's loop | fs/kernel ÷ libfuse (rate) |"
echo "|---|---|---|---|"
for k in lookup getattr; do
	l=$(median "$k" libfuse) f=$(median "$k" fk)
	awk -v k="$k" -v l="$l" -v f="$f" 'BEGIN { printf "| first-touch %s (one stat) | %.0f/s | %.0f/s | %.2f× |\n", toupper(k), 1e6 / l, 1e6 / f, l / f }'
done
echo
echo "Sequential I/O of $MIB MiB in 1 MiB calls (MB/s), medians of $IO_ROUNDS rounds; casefoldfs's"
echo "passthrough: $passthrough:"
echo
echo "| | backing directory | casefoldfs, passthrough | ratio | casefoldfs, -o nopassthrough | ratio |"
echo "|---|---|---|---|---|---|"
for k in write read1 read2; do
	n=$(median "$k" native) p=$(median "$k" passthrough) d=$(median "$k" daemon)
	case $k in write) what="sequential write" ;; read1) what="first read (backing pages cached)" ;;
		read2) what="second read" ;; esac
	awk -v w="$what" -v n="$n" -v p="$p" -v d="$d" 'BEGIN { printf "| %s | %.0f | %.0f | %.2f× | %.0f | %.2f× |\n", w, n, p, p / n, d, d / n }'
done
echo
if [ -n "$waited" ]; then
	echo "A stopped daemon, -o request_timeout=15: a stat got its error after $waited ms (the kernel"
	echo "takes 15 s at least and checks every 15 s)."
else
	echo "Request timeouts: the kernel offers none (Linux < 6.14)."
fi
echo
if [ "$uring" = on ]; then
	echo "FUSE over io_uring: casefoldfs with io_uring -o uring (stats \`io_uring on\`) and by default,"
	echo "$NAMES names, fresh mounts, medians of $ROUNDS interleaved rounds:"
	echo
	echo "| | default (read(2)) | -o uring (io_uring) | io_uring ÷ read(2) (rate) |"
	echo "|---|---|---|---|"
	r=$(median ustat read) u=$(median ustat uring)
	awk -v r="$r" -v u="$u" 'BEGIN { printf "| first-touch stat (one LOOKUP) | %.0f/s | %.0f/s | %.2f× |\n", 1e6 / r, 1e6 / u, r / u }'
	r=$(median uopen read) u=$(median uopen uring)
	awk -v r="$r" -v u="$u" 'BEGIN { printf "| open + read + close, 4 KiB, first touch | %.0f/s | %.0f/s | %.2f× |\n", r, u, u / r }'
else
	echo "FUSE over io_uring: not measured (${uring:-$URING not writable}; Linux < 6.14 has none)."
fi
echo
echo "Load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
