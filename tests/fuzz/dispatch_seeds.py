#!/usr/bin/env python3
"""Seeds for fuzz_dispatch in DIR: every opcode of linux/fuse.h up to 7.44,
each with its body as the kernel sends it, cut short at each edge (nothing,
one byte short of its structure, a name without its NUL), and with bytes
past its end; by read(2) and by io_uring (fuzz/fuzz_dispatch.c: byte 0).
The bodies follow the structures of include/uapi/linux/fuse.h.  Then INIT
as a session's first request (the handshake): protocols older, newer and
ours, with and without flags2; and every request of a real session
(session.txt, recorded by tests/fuzz/record), by read(2) and by io_uring,
its INIT also as the handshake."""
import os
import struct
import sys

RING, KEEP_LEN, NO_OPS, IOCTL_DIR, PASSTHROUGH, INIT = 1, 2, 4, 8, 16, 32


def u32(*v):
    return struct.pack(f"<{len(v)}I", *v)


def u64(*v):
    return struct.pack(f"<{len(v)}Q", *v)


def name(s):
    return s.encode() + b"\0"


read_in = u64(3, 0) + u32(4096, 0) + u64(0) + u32(0o2, 0)
release_in = u64(3) + u32(0o2, 1) + u64(0)  # FUSE_RELEASE_FLUSH
fsync_in = u64(3) + u32(1, 0)
# opcode: (fixed structure, the names or data after it)
BODIES = {
    1: (b"", name("README")),                               # LOOKUP
    2: (u64(1), b""),                                       # FORGET
    3: (u32(1, 0) + u64(3), b""),                           # GETATTR (FUSE_GETATTR_FH)
    4: (u32(0x1ff, 0) + u64(3, 10, 0, 1, 2, 3) + u32(0, 0, 0, 0o644, 0, 1000, 1000, 0), b""),
    5: (b"", b""),                                          # READLINK
    6: (b"", name("link") + name("../target")),             # SYMLINK
    8: (u32(0o10644, 0, 0o22, 0), name("fifo")),            # MKNOD
    9: (u32(0o755, 0o22), name("Dir")),                     # MKDIR
    10: (b"", name("Straße")),                              # UNLINK
    11: (b"", name("DIR")),                                 # RMDIR
    12: (u64(1), name("a") + name("B")),                    # RENAME
    13: (u64(5), name("hard")),                             # LINK
    14: (u32(0o2, 1), b""),                                 # OPEN (FUSE_OPEN_KILL_SUIDGID)
    15: (read_in, b""),                                     # READ
    16: (u64(3, 0) + u32(5, 1) + u64(0) + u32(0o2, 0), b"hello"),  # WRITE
    17: (b"", b""),                                         # STATFS
    18: (release_in, b""),                                  # RELEASE
    20: (fsync_in, b""),                                    # FSYNC
    21: (u32(3, 0), name("user.x") + b"abc"),               # SETXATTR (7.32 layout)
    22: (u32(0, 0), name("user.x")),                        # GETXATTR
    23: (u32(64, 0), b""),                                  # LISTXATTR
    24: (b"", name("user.x")),                              # REMOVEXATTR
    25: (u64(3) + u32(0, 0) + u64(0), b""),                 # FLUSH
    26: (u32(7, 44, 131072, 1 << 30, 0) + bytes(44), b""),  # INIT (a second one)
    27: (u32(0o200000, 0), b""),                            # OPENDIR
    28: (read_in, b""),                                     # READDIR
    29: (release_in, b""),                                  # RELEASEDIR
    30: (fsync_in, b""),                                    # FSYNCDIR
    31: (u64(3, 0, 0, 99) + u32(1, 0) + u32(0, 0), b""),    # GETLK
    32: (u64(3, 0, 0, 99) + u32(1, 0) + u32(0, 0), b""),    # SETLK
    33: (u64(3, 0, 0, 99) + u32(1, 0) + u32(0, 0), b""),    # SETLKW
    34: (u32(4, 0), b""),                                   # ACCESS
    35: (u32(0o101, 0o644, 0o22, 0), name("new")),          # CREATE
    36: (u64(7), b""),                                      # INTERRUPT
    37: (u64(0) + u32(4096, 0), b""),                       # BMAP
    38: (b"", b""),                                         # DESTROY
    39: (u64(3) + u32(1 << 4, 0x80086601) + u64(0) + u32(8, 8), bytes(8)),  # IOCTL (DIR)
    40: (u64(3, 0) + u32(0, 1), b""),                       # POLL
    42: (u32(2, 0), u64(5, 1, 6, 2)),                       # BATCH_FORGET
    43: (u64(3, 0, 4096) + u32(0, 0), b""),                 # FALLOCATE
    44: (read_in, b""),                                     # READDIRPLUS
    45: (u64(1) + u32(1, 0), name("a") + name("A")),        # RENAME2 (RENAME_NOREPLACE)
    46: (u64(3, 0) + u32(3, 0), b""),                       # LSEEK
    47: (u64(3, 0, 0, 4, 3, 0, 4096) , b""),                # COPY_FILE_RANGE
    50: (u64(0), b""),                                      # SYNCFS
    51: (u32(0o2, 0o600, 0o22, 0), name("tmp")),            # TMPFILE
    52: (u32(0, 0) + u64(3) + u32(0x7ff, 0), b""),          # STATX
    4096: (b"", b""),                                       # CUSE_INIT
}


def request(opcode, body, unique):
    """A request as read(2) gives it: fuse_in_header, then the body."""
    nodeid = 1 if opcode != 3 else 2
    return u32(40 + len(body), opcode) + u64(unique, nodeid) + u32(1000, 1000, 4242) + bytes(4) + body


def variants(fixed, rest):
    """The body whole, cut at each edge, and with bytes past its end."""
    whole = fixed + rest
    cuts = {0, len(fixed), len(whole) - 1, len(whole), len(whole) + 16}
    if fixed:
        cuts.add(len(fixed) - 1)
    for n in sorted(c for c in cuts if c >= 0):
        yield (whole + b"tail-of-16-bytes")[:n]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    i = 0
    for opcode, (fixed, rest) in BODIES.items():
        for body in variants(fixed, rest):
            for flags in (0, RING, IOCTL_DIR | PASSTHROUGH, NO_OPS):
                i += 1
                with open(os.path.join(out, f"seed-{i}"), "wb") as f:
                    f.write(bytes([flags]) + request(opcode, body, i))
    # A header that lies about its length, and one cut short.
    with open(os.path.join(out, "seed-badlen"), "wb") as f:
        f.write(bytes([KEEP_LEN]) + u32(99, 1) + bytes(32) + name("x"))
    with open(os.path.join(out, "seed-short"), "wb") as f:
        f.write(bytes([0]) + u32(20, 1) + bytes(12))
    # The handshake: fuse_init_in's major, minor, max_readahead, flags, then
    # (7.36) flags2, which counts only with FUSE_INIT_EXT.
    for major, minor in ((6, 44), (7, 22), (7, 23), (7, 31), (7, 44), (7, 45), (8, 0)):
        for flags, flags2 in ((0, 0), (0xffffffff, 0), (1 << 30, 0xffffffff)):
            body = u32(major, minor, 131072, flags, flags2) + bytes(44)
            for n in (15, 16, 20, len(body)):
                i += 1
                with open(os.path.join(out, f"seed-{i}"), "wb") as f:
                    f.write(bytes([INIT]) + request(26, body[:n], i))
    # A real session's requests.
    here = os.path.dirname(os.path.abspath(__file__))
    for line in open(os.path.join(here, "session.txt")):
        if line.startswith("#") or not line.strip():
            continue
        req = bytes.fromhex(line)
        opcode = struct.unpack_from("<I", req, 4)[0]
        for flags in (0, RING) + ((INIT,) if opcode == 26 else ()):
            i += 1
            with open(os.path.join(out, f"seed-{i}"), "wb") as f:
                f.write(bytes([flags]) + req)


main()
