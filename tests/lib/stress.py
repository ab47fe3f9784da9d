#!/usr/bin/env python3
"""Stress casefoldfs against a reference model, optionally killing it.

  stress.py --cfs DAEMON --cli CASEFOLD --dir T --procs N --ops K
            [--kills K] [--seed S]

Mounts T/back on T/mnt and forks N workers.  Worker i owns w<i>/ci (+F) and
w<i>/cs (plain) and runs K random operations on case and canonical variants
of a few names there, each checked against its own exact model
(stress_model.py); about one operation in five goes to shared/ (+F), where
all workers race and only the outcomes any interleaving allows are accepted.

With --kills, the daemon is killed with SIGKILL at random moments; the mount
is dropped (fusermount3 -uz), remounted, and the backing tree must hold
exactly the model's state (or, for the one operation each worker had in
flight, its state before or after that operation).

Checked at the end of every phase: every name, type, file's contents,
symlink target, user xattr, casefold flag and hard link of the worker trees
(backing tree and mount); fold-equal spellings of every stored name in +F
directories reach the same inode through the mount; no +F directory of the
backing tree holds two fold-equal names (folded by the CLI); shared files
hold a whole record or nothing; no temporary files are left.
"""
import argparse
import copy
import errno
import fcntl
import os
import pickle
import random
import re
import stat
import subprocess
import sys
import time

from daemon import Daemon
from stress_model import SYMLINK_TARGET, Model

FS_IOC_GETFLAGS = 0x80086601
FS_IOC_SETFLAGS = 0x40086602
FS_CASEFOLD_FL = 0x40000000
# The tree's flag store: user.* when the test runs as an ordinary user (fs.sh).
FLAG_XATTR = os.environ.get("CFS_XATTRS", "trusted.casefoldfs.") + "casefold"
DISCONNECTED = {"ENOTCONN", "ECONNABORTED"}
SHARED_ALLOWED = {"OK", "ENOENT", "EEXIST", "EISDIR", "ENOTDIR", "ENOTEMPTY", "EPERM"}
RECORD = re.compile(rb"\A(\d\d:\d{7}\n)?\Z")
# What a read racing with O_TRUNC and a rewrite through other descriptors
# can return on FUSE (never on ext4) when the reader opened the file while
# no writer had it open, so reads through the page cache: the kernel
# zero-fills the page of a read that came back short and copies it out up
# to a size a later write set (fs/tree/DESIGN.md, "File data").  The backing
# file never holds it (checked at the end); counted, not failed.
ZEROED = bytes(11)


def case_variants(word):
    out = [""]
    for c in word:
        out = [p + v for p in out for v in {c.lower(), c.upper()}]
    return out


# Groups of spellings; most groups are fold-equal, canonically equivalent
# or differ only by an ignorable.  The CLI decides what is equal.
GROUPS = [
    case_variants("alpha"),
    case_variants("beta"),
    ["straße", "Straße", "STRASSE", "strasse", "STRAßE"],
    ["\u00c5", "A\u030a", "\u212b", "\u00e5", "a\u030a"],
    ["k", "K", "\u212a"],
    ["a\u200db", "ab", "AB", "A\u200dB"],
    ["café", "cafe\u0301", "CAFÉ", "CAFE\u0301"],
]

PRIVATE_OPS = (["create"] * 12 + ["excl"] * 8 + ["write"] * 10 + ["read"] * 10 +
               ["mkdir"] * 10 + ["symlink"] * 4 + ["unlink"] * 10 + ["rmdir"] * 8 +
               ["link"] * 6 + ["rename"] * 14 + ["setxattr"] * 4 + ["chattr"] * 6)
SHARED_OPS = ["excl", "write", "write", "read", "rename", "rename", "unlink",
              "mkdir", "rmdir", "link"]


def fold_keys(cli, names):
    """Fold key of each name, from `casefold fold --hex` (one line each)."""
    out = subprocess.run([cli, "fold", "--hex", "-"], input=b"\n".join(names) + b"\n",
                         stdout=subprocess.PIPE, check=True).stdout.splitlines()
    if len(out) != len(names):
        raise SystemExit("casefold fold: %d results for %d names" % (len(out), len(names)))
    return out


# ---- One operation on the mount ---------------------------------------

def errname(e):
    """Linux's EOPNOTSUPP is ENOTSUP; call it what the kernel source does."""
    return "EOPNOTSUPP" if e.errno == errno.EOPNOTSUPP else errno.errorcode.get(e.errno, str(e.errno))


def read_all(fd):
    chunks = []
    while True:
        b = os.read(fd, 65536)
        if not b:
            return b"".join(chunks)
        chunks.append(b)


def write_file(path, flags, rec, sync=False):
    fd = os.open(path, flags | os.O_NOFOLLOW, 0o644)
    try:
        os.write(fd, rec)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def chattr(path, on):
    """Returns (outcome, whether GETFLAGS showed +F)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        flags = int.from_bytes(fcntl.ioctl(fd, FS_IOC_GETFLAGS, bytes(8))[:4], "little")
        new = flags | FS_CASEFOLD_FL if on else flags & ~FS_CASEFOLD_FL
        try:
            fcntl.ioctl(fd, FS_IOC_SETFLAGS, new.to_bytes(4, "little") + bytes(4))
        except OSError as e:
            return errname(e), bool(flags & FS_CASEFOLD_FL)
        return "OK", bool(flags & FS_CASEFOLD_FL)
    finally:
        os.close(fd)


def perform(root, op, args):
    def p(path):
        return os.path.join(root, *path)
    try:
        if op == "create":
            write_file(p(args[0]), os.O_CREAT | os.O_WRONLY | os.O_APPEND, args[1])
        elif op == "excl":
            write_file(p(args[0]), os.O_CREAT | os.O_EXCL | os.O_WRONLY, args[1])
        elif op == "write":
            write_file(p(args[0]), os.O_WRONLY | os.O_TRUNC, args[1], sync=True)
        elif op == "read":
            fd = os.open(p(args[0]), os.O_RDONLY | os.O_NOFOLLOW)
            try:
                return "OK", read_all(fd)
            finally:
                os.close(fd)
        elif op == "mkdir":
            os.mkdir(p(args[0]), 0o755)
        elif op == "symlink":
            os.symlink(SYMLINK_TARGET, p(args[0]))
        elif op == "unlink":
            os.unlink(p(args[0]))
        elif op == "rmdir":
            os.rmdir(p(args[0]))
        elif op == "link":
            os.link(p(args[0]), p(args[1]), follow_symlinks=False)
        elif op == "rename":
            os.rename(p(args[0]), p(args[1]))
        elif op == "setxattr":
            os.setxattr(p(args[0]), "user.k", args[1], follow_symlinks=False)
        elif op == "chattr":
            return chattr(p(args[0]), args[1])
        else:
            raise ValueError(op)
    except OSError as e:
        return errname(e), None
    return "OK", None


# ---- Workers ------------------------------------------------------------

class Worker:
    def __init__(self, wid, names, variants, seed):
        self.wid = wid
        self.names = names
        self.variants = variants    # fold key -> spellings
        self.rng = random.Random(seed)
        self.opno = 0

    def name(self):
        return self.rng.choice(self.rng.choice(self.names))

    def path(self, model, depth1=False):
        """A path of depth one or two; most of the latter go through an
        existing subdirectory, spelled any way that reaches it."""
        c = self.rng.choice(["ci", "cs"])
        if depth1 or self.rng.random() < 0.6:
            return [c, self.name()]
        d = model.root.entries[c][1]
        subs = [stored for stored, n in d.entries.values() if n.kind == "d"]
        if not subs or self.rng.random() < 0.15:
            return [c, self.name(), self.name()]
        sub = self.rng.choice(subs)
        if d.casefold:
            sub = self.rng.choice(self.variants[model.fold[sub]])
        return [c, sub, self.name()]

    def record(self):
        return b"%02d:%07d\n" % (self.wid, self.opno)

    def private_op(self, model):
        op = self.rng.choice(PRIVATE_OPS)
        if op in ("create", "excl", "write", "setxattr"):
            return op, (self.path(model), self.record())
        if op == "link":
            return op, (self.path(model), self.path(model))
        if op == "rename":
            return op, (self.path(model, True), self.path(model, True))
        if op == "chattr":
            target = self.path(model) if self.rng.random() < 0.9 else [self.rng.choice(["ci", "cs"])]
            return op, (target, self.rng.random() < 0.5)
        return op, (self.path(model),)

    def shared_op(self):
        op = self.rng.choice(SHARED_OPS)
        a, b = ["shared", self.name()], ["shared", self.name()]
        if op in ("excl", "write"):
            return op, (a, self.record())
        if op in ("rename", "link"):
            return op, (a, b)
        return op, (a,)


def run_worker(w, model, mnt, budget, result_path):
    """Runs until budget is spent or the mount dies; pickles what happened."""
    res = {"model": model, "pending": None, "ops": 0, "shared": 0, "errors": 0,
           "mismatches": [], "outcomes": {}, "zeroed": 0}
    root = os.path.join(mnt, "w%d" % w.wid)
    for _ in range(budget):
        w.opno += 1
        if w.rng.random() < 0.2:
            op, args = w.shared_op()
            got, data = perform(mnt, op, args)
            if got in DISCONNECTED:
                break
            res["shared"] += 1
            if got not in SHARED_ALLOWED:
                res["mismatches"].append("shared %s %s: %s" % (op, args, got))
            elif op == "read" and got == "OK" and data == ZEROED:
                res["zeroed"] += 1
            elif op == "read" and got == "OK" and not RECORD.match(data):
                res["mismatches"].append("shared %s holds %r" % (args[0], data[:40]))
            continue
        op, args = w.private_op(model)
        got, data = perform(root, op, args)
        if got in DISCONNECTED:
            res["pending"] = (op, args)
            break
        want, info = model.apply(op, args)
        res["outcomes"][op, got] = res["outcomes"].get((op, got), 0) + 1
        res["ops"] += 1
        res["errors"] += got != "OK"
        if got != want or (info is not None and data != info):
            res["mismatches"].append("w%d op %d %s %s: got %s %r, model %s %r" % (
                w.wid, w.opno, op, args, got, data, want, info))
            break       # the model no longer describes the tree
    res["next"] = w
    with open(result_path, "wb") as f:
        pickle.dump(res, f)


# ---- Verification --------------------------------------------------------

def lstat_or_none(path):
    try:
        return os.lstat(path)
    except OSError:
        return None


def xattr_or_none(path, name):
    try:
        return os.getxattr(path, name, follow_symlinks=False)
    except OSError as e:
        if e.errno == errno.ENODATA:
            return None
        raise


def kind_of(st):
    return "d" if stat.S_ISDIR(st.st_mode) else "l" if stat.S_ISLNK(st.st_mode) else "f"


class Verifier:
    def __init__(self, variants, rng):
        self.variants = variants    # fold key -> spellings
        self.rng = rng

    def tree(self, model, bdir, mdir):
        """Problems found comparing model with backing tree bdir and mount mdir."""
        self.problems, self.inode, self.owner, self.refs = [], {}, {}, {}
        self.count_refs(model.root)
        self.model = model
        self.dir(model.root, bdir, mdir)
        return self.problems

    def count_refs(self, node):
        for _, child in node.entries.values():
            self.refs[id(child)] = self.refs.get(id(child), 0) + 1
            if child.kind == "d":
                self.count_refs(child)

    def dir(self, node, bpath, mpath):
        bad = self.problems.append
        want = {stored: child for stored, child in node.entries.values()}
        have = set(os.listdir(bpath))
        if have != set(want):
            bad("%s: backing has extra %s, lacks %s" % (
                bpath, sorted(have - set(want)), sorted(set(want) - have)))
        if mpath is not None and set(os.listdir(mpath)) != have:
            bad("%s: mount lists %s" % (mpath, sorted(os.listdir(mpath))))
        if node is not self.model.root and (xattr_or_none(bpath, FLAG_XATTR) is not None) != node.casefold:
            bad("%s: casefold flag is not %s" % (bpath, node.casefold))
        for stored, child in want.items():
            bp = os.path.join(bpath, stored)
            st = lstat_or_none(bp)
            if st is None:
                continue
            self.entry(child, st, bp)
            if mpath is not None:
                self.through_mount(node, stored, st, mpath)
            if child.kind == "d" and kind_of(st) == "d":
                self.dir(child, bp, None if mpath is None else os.path.join(mpath, stored))

    def entry(self, child, st, bp):
        bad = self.problems.append
        if kind_of(st) != child.kind:
            bad("%s: a %s, model has a %s" % (bp, kind_of(st), child.kind))
            return
        if self.inode.setdefault(id(child), st.st_ino) != st.st_ino or \
           self.owner.setdefault(st.st_ino, id(child)) != id(child):
            bad("%s: hard links do not match the model" % bp)
        if child.kind == "f":
            with open(bp, "rb") as f:
                data = f.read()
            if data != child.data:
                bad("%s: holds %r, model %r" % (bp, data[:60], child.data[:60]))
            if st.st_nlink != self.refs[id(child)]:
                bad("%s: %d links, model %d" % (bp, st.st_nlink, self.refs[id(child)]))
        if child.kind == "l" and os.readlink(bp) != child.target:
            bad("%s: symlink target %s" % (bp, os.readlink(bp)))
        if child.kind != "l" and xattr_or_none(bp, "user.k") != child.xattrs.get("user.k"):
            bad("%s: user.k is %r" % (bp, xattr_or_none(bp, "user.k")))

    def through_mount(self, node, stored, st, mpath):
        """The stored name, and fold-equal spellings in +F dirs, reach it."""
        spellings = [stored]
        if node.casefold:
            pool = self.variants[self.model.fold[stored]]
            spellings += self.rng.sample(pool, min(3, len(pool)))
        for s in spellings:
            mst = lstat_or_none(os.path.join(mpath, s))
            if mst is None or mst.st_ino != st.st_ino:
                self.problems.append("%s: %s does not reach the stored %s" % (mpath, s, stored))


def casefolded_dirs(top):
    for dirpath, dirnames, _ in os.walk(top):
        if xattr_or_none(dirpath, FLAG_XATTR) is not None:
            yield dirpath


def fold_duplicates(cli, top):
    """Pairs of fold-equal names in the same +F directory of the backing tree."""
    entries = [(d, n) for d in casefolded_dirs(top) for n in os.listdir(os.fsencode(d))]
    if not entries:
        return []
    seen, dups = {}, []
    for (d, n), k in zip(entries, fold_keys(cli, [n for _, n in entries])):
        other = seen.setdefault((d, k), n)
        if other != n:
            dups.append("%s: %r and %r are fold-equal" % (d, other, n))
    return dups


def leftovers(top):
    bad = []
    for dirpath, dirnames, filenames in os.walk(top):
        for n in dirnames + filenames:
            if n.startswith(".fuse_hidden") or n == ".casefoldfs.tmp":
                bad.append(os.path.join(dirpath, n))
    return bad


def check_shared(back, mnt):
    bad = []
    have = set(os.listdir(os.path.join(back, "shared")))
    if set(os.listdir(os.path.join(mnt, "shared"))) != have:
        bad.append("shared: the mount lists other names than the backing directory")
    for n in have:
        p = os.path.join(back, "shared", n)
        if os.path.isfile(p) and not os.path.islink(p):
            with open(p, "rb") as f:
                data = f.read()
            if not RECORD.match(data):
                bad.append("shared/%s holds %r" % (n, data[:40]))
    return bad


# ---- Orchestration ------------------------------------------------------

def setup(mnt, procs):
    for i in range(procs):
        os.makedirs(os.path.join(mnt, "w%d" % i, "ci"))
        os.makedirs(os.path.join(mnt, "w%d" % i, "cs"))
        chattr(os.path.join(mnt, "w%d" % i, "ci"), True)
    os.mkdir(os.path.join(mnt, "shared"))
    chattr(os.path.join(mnt, "shared"), True)


def settle(verifier, res, back, mnt):
    """The worker's model after its phase, choosing how its in-flight
    operation ended; a list of problems if no choice matches the tree."""
    wid = res["next"].wid
    b, m = os.path.join(back, "w%d" % wid), os.path.join(mnt, "w%d" % wid)
    candidates = [res["model"]]
    if res["pending"]:
        op, args = res["pending"]
        for variant in ([args] + ([(args[0], b"")] if op in ("create", "excl", "write") else []) +
                        ([(args[0], False)] if op == "mkdir" else [])):
            c = copy.deepcopy(res["model"])
            c.apply(op, variant)
            candidates.append(c)
    problems = None
    for c in candidates:
        p = verifier.tree(c, b, m)
        if not p:
            return c, []
        problems = problems or p
    return None, problems


def run_phases(workers, mnt, tmp, ops, kills, rng, daemon, settle, check):
    """Runs the workers ((Worker, model) pairs, updated in place) for ops
    operations each, in kills + 1 phases: in each but the last the daemon
    is killed at a random moment and restarted once the workers stop.
    After each phase settle(result) gives a worker's (model, problems) and
    check() the problems of the whole tree; any problem ends the run.
    Returns the totals and the outcomes counted by (op, result)."""
    left = [ops] * len(workers)
    totals = {"ops": 0, "shared": 0, "errors": 0, "kills": 0, "inflight": 0, "zeroed": 0}
    outcomes = {}
    for phase in range(kills + 1):
        pids = {}
        for i, (w, model) in enumerate(workers):
            path = os.path.join(tmp, "result.%d" % i)
            pid = os.fork()
            if pid == 0:
                try:
                    run_worker(w, model, mnt, left[i], path)
                finally:
                    os._exit(0)
            pids[pid] = path
        if phase < kills:
            time.sleep(rng.uniform(0.2, 1.5))
            daemon.kill()
            totals["kills"] += 1
        for pid in pids:
            os.waitpid(pid, 0)
        if phase < kills:
            daemon.drop()
            daemon.start()
        problems = []
        for i, path in enumerate(pids.values()):
            with open(path, "rb") as f:
                res = pickle.load(f)
            problems += res["mismatches"]
            for k in ("ops", "shared", "errors", "zeroed"):
                totals[k] += res[k]
            for k, n in res["outcomes"].items():
                outcomes[k] = outcomes.get(k, 0) + n
            left[i] -= res["ops"] + res["shared"] + (1 if res["pending"] else 0)
            totals["inflight"] += res["pending"] is not None
            model, p = settle(res)
            problems += p
            workers[i] = (res["next"], model)
        problems += check()
        if problems:
            print("\n".join(problems[:30]), file=sys.stderr)
            raise SystemExit("phase %d: %d problems" % (phase, len(problems)))
    return totals, outcomes


def arguments():
    """The options every model stress takes (this one, tests/view/view_stress.py)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--cfs", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--procs", type=int, default=4)
    ap.add_argument("--ops", type=int, default=500)
    ap.add_argument("--kills", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    return ap


def main():
    ap = arguments()
    ap.add_argument("--verbose", action="store_true", help="outcomes of each operation")
    a = ap.parse_args()
    back, mnt = os.path.join(a.dir, "back"), os.path.join(a.dir, "mnt")
    daemon = Daemon(a.cfs, [back], mnt, os.path.join(a.dir, "daemon.log"))
    rng = random.Random(a.seed)

    spellings = [s for g in GROUPS for s in g]
    keys = fold_keys(a.cli, [s.encode() for s in spellings])
    fold = dict(zip(spellings, (k.decode() for k in keys)))
    variants = {}
    for s in spellings:
        variants.setdefault(fold[s], []).append(s)
    verifier = Verifier(variants, rng)

    daemon.start()
    setup(mnt, a.procs)
    workers = [(Worker(i, GROUPS, variants, a.seed * 1000 + i), Model(fold))
               for i in range(a.procs)]
    totals, outcomes = run_phases(
        workers, mnt, a.dir, a.ops, a.kills, rng, daemon,
        lambda res: settle(verifier, res, back, mnt),
        lambda: fold_duplicates(a.cli, back) + leftovers(back) + check_shared(back, mnt))
    daemon.stop()
    if a.verbose:
        for (op, got), n in sorted(outcomes.items()):
            print("  %-8s %-10s %6d" % (op, got, n))
    print("stress: %d procs, %d model-checked operations (%d refused as the model "
          "predicted), %d shared (%d reads zero-filled by the kernel), %d kills survived, "
          "%d operations in flight at a kill" % (
              a.procs, totals["ops"], totals["errors"], totals["shared"], totals["zeroed"],
              totals["kills"], totals["inflight"]))


if __name__ == "__main__":
    main()
