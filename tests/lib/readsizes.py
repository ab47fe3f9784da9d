#!/usr/bin/env python3
"""Files of every size around the read path's boundaries, and their reads.

  readsizes.py write DIR    writes f-SIZE for every size into DIR
  readsizes.py check DIR    reads each back and compares, byte for byte

The sizes sit around each boundary a READ can meet: a page, the 64 KiB a
splice once started at, each pipe size (a header and N pages need N + 1
pipe slots; an unaligned read spans one page more), the 1 MiB of
max_read, and a READ split in two.  Each file is read whole, then through
a descriptor also open for writing — the daemon then answers each read(2)
itself (FOPEN_DIRECT_IO, where the mode has it) — at offset 0, at an
unaligned offset and at its tail, each time to the end of the file.  The
contents are a function of the size, so a file written behind the mount
checks the same way.  Prints one line per failure; exits 1 if any.
"""
import os
import random
import sys

BOUNDARIES = (4096, 65536, 131072, 262144, 524288, 1048576, 2097152)
DELTAS = (-4113, -4112, -4111, -4097, -4096, -4095, -1001, -17, -16, -15, -1, 0, 1, 4095)


def sizes():
    return sorted({b + d for b in BOUNDARIES for d in DELTAS if b + d > 0})


def contents(size):
    return random.Random(size).randbytes(size)


def write(d):
    for size in sizes():
        with open(os.path.join(d, "f-%d" % size), "wb") as f:
            f.write(contents(size))


def read_to_end(fd, off):
    parts = []
    while True:
        chunk = os.pread(fd, 1 << 20, off)
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
        off += len(chunk)


def check(d):
    bad = 0
    for size in sizes():
        path = os.path.join(d, "f-%d" % size)
        want = contents(size)
        fd = os.open(path, os.O_RDONLY)
        got = read_to_end(fd, 0)
        os.close(fd)
        if got != want:
            print("%s: whole read gave %d bytes, %s" % (path, len(got), "differing" if len(got) == size else "short"))
            bad += 1
        fd = os.open(path, os.O_RDWR)
        for off in sorted({0, 1000 % size, max(size - 10, 0)}):
            got = os.pread(fd, size - off, off)
            if got != want[off:]:
                print("%s: pread(%d, at %d) gave %d bytes" % (path, size - off, off, len(got)))
                bad += 1
        os.close(fd)
    return bad


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "check"):
        sys.exit("usage: readsizes.py write|check DIR")
    if sys.argv[1] == "write":
        write(sys.argv[2])
        return
    bad = check(sys.argv[2])
    print("%d files, %d bad reads" % (len(sizes()), bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
