#!/bin/sh
# Benchmark section "lib": libcasefold against its peers.  Usage: bench/lib.sh BUILD_DIR
set -eu
O=${1:-build}
make -s O="$O" lib
make -s -f bench/Makefile O="$O"
bench/inputs.sh "$O/bench"
# The kernel's table, measured in libext2fs (e2fsprogs' copy of it).
ksize=$(nm -S "$(pkg-config --variable=libdir ext2fs)/libext2fs.a" 2>/dev/null |
	awk '$4 == "utf8data" { print $2 }')
ktable=$(printf '%d' "0x${ksize:-fb00}")
"$O/bench/libbench" "$O/bench/ascii.names" "$O/bench/words.names" "$ktable"
