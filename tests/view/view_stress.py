#!/usr/bin/env python3
"""Stress an overlay view of casefoldfs against the reference model.

  view_stress.py --cfs DAEMON --cli CASEFOLD --dir T --procs N --ops K
                    [--layers L] [--kills K] [--seed S]

Makes L lower layers under T (T/l1 on top) in which every worker's subtree
(w<i>/ci, w<i>/cs) and the names in it are spelled differently from layer to
layer, with files, directories, symlinks and whiteouts (xattr whiteouts, and
character devices 0/0 as root); mounts the view with an upper layer
(T/upper) on T/mnt and runs stress.py's workers on it.  Every directory of
the view is case-insensitive, so the model (stress_model.py) starts from
the merge of the lower layers worked out here — fold-equal names one entry,
the topmost layer's file and spelling, directories merged until a whiteout —
with every directory casefolded; the one overlay rule the model adds is
EXDEV for renaming a directory that comes from a lower layer.

With --kills, the daemon is killed with SIGKILL at random moments and
remounted, as stress.py does.  Checked after every phase: the view against
the model (every name as listed, type, content, symlink target, user.k,
hard links, other spellings reaching the same inode); the lower layers
unchanged (names, modes, times, xattrs, contents); the upper layer
consistent: no two fold-equal objects in one directory, every entry either a
whiteout or shown by the view under its own name, and every regular file a
complete copy — the lower files carry a self-checking header (their length
and SHA-256), so a file in upper is a whole lower file followed by whole
records, or whole records only.
"""
import copy
import hashlib
import os
import random
import re
import stat
import sys

# The engine (stress.py: workers, phases, kills) and the daemon are the tree
# stress's, in tests/lib (the filesystem suites' shared library).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import stress  # noqa: E402
from daemon import Daemon  # noqa: E402
from stress import GROUPS, fold_keys, run_phases, Worker, lstat_or_none, kind_of  # noqa: E402
from stress_model import SYMLINK_TARGET, Model, Node, Err  # noqa: E402

# No chattr: in a view every directory is case-insensitive already.
stress.PRIVATE_OPS = [op for op in stress.PRIVATE_OPS if op != "chattr"]

ROOT_SPELLINGS = ["ci", "CI", "Ci", "cI", "cs", "CS", "Cs", "cS", "shared", "Shared", "SHARED"]
RECORDS = re.compile(rb"(?:\d\d:\d{7}\n)*\Z")
HEADER = re.compile(rb"LOWER (\d+) ([0-9a-f]{64})\n")
WHITEOUT = ("w",)
# One spelling per name: to check this script itself on a case-sensitive
# overlay (fuse-overlayfs, whose own .wh.* markers upper may then hold, and
# which reads no xattr whiteouts).
ONE_SPELLING = bool(os.environ.get("CF_OVL_ONE_SPELLING"))


def lower_block(tag, size):
    """A lower file's self-checking contents: header (length, SHA-256), payload."""
    line = tag.encode() + b" "
    payload = b"".join(line + b"%07d\n" % i for i in range(size // (len(line) + 8) + 1))
    return b"LOWER %d %s\n" % (len(payload), hashlib.sha256(payload).hexdigest().encode()) + payload


def complete(data):
    """Whole lower file then whole records, or whole records only."""
    m = HEADER.match(data)
    if m:
        n = int(m.group(1))
        payload = data[m.end():m.end() + n]
        if len(payload) != n or hashlib.sha256(payload).hexdigest().encode() != m.group(2):
            return False
        data = data[m.end() + n:]
    return RECORDS.match(data) is not None


class OverlayModel(Model):
    def op_rename(self, src, dst):
        """overlayfs without redirect_dir: a directory from a lower layer
        cannot move (EXDEV), checked after the VFS's own checks."""
        sd = self.parent(src)
        se = self.lookup(sd, src[-1])
        if se is not None and se[1].kind == "d" and getattr(se[1], "lower", False):
            de = self.lookup(self.parent(dst), dst[-1])
            if de is None or (de[1] is not se[1] and de[1].kind == "d"):
                raise Err("EXDEV")
        return super().op_rename(src, dst)


# ---- The lower layers --------------------------------------------------------

class Layers:
    """L lower layers as nested dicts (spelling -> ("f", data) | ("l",) |
    ("d", dict) | WHITEOUT), written to disk, and merged into model nodes."""

    def __init__(self, rng, fold, variants, count, procs):
        self.rng, self.fold, self.variants = rng, fold, variants
        self.trees = [dict() for _ in range(count)]
        self.whiteouts = 0
        groups = [g for g in GROUPS]
        for wid in range(procs):
            w = "w%d" % wid
            for c in ("ci", "cs"):
                # Each key is one kind in every layer (the merge rules for a
                # file over a directory are not what this exercises).
                kinds = {self.fold[g[0]]: rng.choice("fffdddl") for g in groups}
                for li, tree in enumerate(self.trees):
                    bottom = li == count - 1
                    if not bottom and rng.random() < 0.3:
                        continue
                    wd = self.dir_of(tree, w)
                    cd = self.dir_of(wd, c)
                    for g in groups:
                        key = self.fold[g[0]]
                        if rng.random() < 0.45:
                            continue
                        name = rng.choice(g)
                        if not bottom and rng.random() < 0.12:
                            cd[name] = WHITEOUT
                            continue
                        cd[name] = self.entry(kinds[key], "l%d/%s/%s/%s" % (li + 1, w, c, key), depth=1)
        for li, tree in enumerate(self.trees):
            if li == count - 1 or rng.random() < 0.7:
                sh = self.dir_of(tree, "shared")
                for g in groups[:3]:
                    if rng.random() < 0.5:
                        sh[rng.choice(g)] = ("f", b"99:0000000\n")

    def dir_of(self, tree, name):
        """The directory under a spelling of name in tree, made if missing."""
        for n, e in tree.items():
            if self.fold[n] == self.fold[name] and e[0] == "d":
                return e[1]
        spelled = self.rng.choice(self.variants[self.fold[name]])
        tree[spelled] = ("d", {})
        return tree[spelled][1]

    def entry(self, kind, tag, depth):
        if kind == "l":
            return ("l",)
        if kind == "f":
            return ("f", lower_block(tag, self.rng.choice([60, 60, 3000, 3000, 200000])))
        children = {}
        if depth < 2:
            for g in GROUPS:
                if self.rng.random() < 0.2:
                    children[self.rng.choice(g)] = self.entry(self.rng.choice("ffl"), tag + "/" + g[0], depth + 1)
        return ("d", children)

    def write(self, paths, root_ok):
        for tree, path in zip(self.trees, paths):
            os.mkdir(path)
            self.write_dir(tree, path, root_ok)

    def write_dir(self, tree, path, root_ok):
        marked = False
        for name, e in tree.items():
            p = os.path.join(path, name)
            if e[0] == "f":
                with open(p, "wb") as f:
                    f.write(e[1])
            elif e[0] == "l":
                os.symlink(SYMLINK_TARGET, p)
            elif e[0] == "d":
                os.mkdir(p)
                self.write_dir(e[1], p, root_ok)
            else:
                self.whiteouts += 1
                # Both forms overlayfs knows, half and half as root
                # (fuse-overlayfs 1.10 knows only the device).
                if root_ok and (self.rng.random() < 0.5 or ONE_SPELLING):
                    os.mknod(p, stat.S_IFCHR | 0o600, os.makedev(0, 0))
                else:
                    open(p, "w").close()
                    os.setxattr(p, "user.overlay.whiteout", b"y")
                    marked = True
        if marked:
            os.setxattr(path, "user.overlay.opaque", b"x")

    def merge(self, dirs):
        """The view of directories dirs (dicts, top first) as a model node."""
        node = Node("d", casefold=True)
        node.lower = True
        order = []
        for d in dirs:
            for n in d:
                if self.fold[n] not in order:
                    order.append(self.fold[n])
        for key in order:
            shown, found = None, []
            for d in dirs:
                hit = [(n, e) for n, e in d.items() if self.fold[n] == key]
                if not hit:
                    continue
                n, e = hit[0]
                if e == WHITEOUT:
                    break
                if shown is None:
                    shown = n
                if e[0] != "d":
                    if not found:
                        found = [e]
                    break
                found.append(e)
            if not found:
                continue
            e = found[0]
            if e[0] == "f":
                child = Node("f", data=e[1])
            elif e[0] == "l":
                child = Node("l", target=SYMLINK_TARGET)
            else:
                child = self.merge([f[1] for f in found])
            node.entries[key] = (shown, child)
        return node

    def model(self, wid):
        m = OverlayModel(self.fold)
        w = self.merge([e[1] for t in self.trees for n, e in t.items()
                        if e[0] == "d" and self.fold[n] == self.fold["w%d" % wid]])
        for c in ("ci", "cs"):
            shown, node = w.entries[self.fold[c]]
            m.root.entries[c] = (shown, node)
        return m


def tree_state(path):
    """Every name under path with type, mode, size, times, xattrs, link
    target, device and content hash."""
    out = []
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames.sort()
        for n in [""] + sorted(dirnames + filenames):
            p = os.path.join(dirpath, n) if n else dirpath
            st = os.lstat(p)
            x = sorted((a, os.getxattr(p, a, follow_symlinks=False))
                       for a in os.listxattr(p, follow_symlinks=False))
            extra = os.readlink(p) if stat.S_ISLNK(st.st_mode) else \
                hashlib.sha256(open(p, "rb").read()).hexdigest() if stat.S_ISREG(st.st_mode) else st.st_rdev
            out.append((p, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, x, extra))
    return out


# ---- Checking the view --------------------------------------------------------

class ViewVerifier:
    def __init__(self, variants, fold, rng):
        self.variants, self.fold, self.rng = variants, fold, rng

    def tree(self, model, mdir):
        self.problems, self.inode, self.owner = [], {}, {}
        for c in ("ci", "cs"):
            self.dir(model.root.entries[c][1], os.path.join(mdir, c))
        return self.problems

    def dir(self, node, mpath):
        bad = self.problems.append
        want = {stored: child for stored, child in node.entries.values()}
        try:
            have = set(os.listdir(mpath))
        except OSError as e:
            bad("%s: %s" % (mpath, e))
            return
        if have != set(want):
            bad("%s: the view lists extra %s, lacks %s" % (mpath, sorted(have - set(want)), sorted(set(want) - have)))
        for stored, child in want.items():
            p = os.path.join(mpath, stored)
            st = lstat_or_none(p)
            if st is None:
                bad("%s: not found" % p)
                continue
            if kind_of(st) != child.kind:
                bad("%s: a %s, model has a %s" % (p, kind_of(st), child.kind))
                continue
            if self.inode.setdefault(id(child), st.st_ino) != st.st_ino or \
               self.owner.setdefault(st.st_ino, id(child)) != id(child):
                bad("%s: hard links (inode numbers) do not match the model" % p)
            for s in self.rng.sample(self.variants[self.fold[stored]], min(3, len(self.variants[self.fold[stored]]))):
                o = lstat_or_none(os.path.join(mpath, s))
                if o is None or o.st_ino != st.st_ino:
                    bad("%s: %s does not reach it" % (p, s))
            if child.kind == "f":
                with open(p, "rb") as f:
                    data = f.read()
                if data != child.data:
                    bad("%s: holds %r..., model %r..." % (p, data[:50], child.data[:50]))
            elif child.kind == "l":
                if os.readlink(p) != child.target:
                    bad("%s: symlink to %s" % (p, os.readlink(p)))
            if child.kind != "l":
                try:
                    x = os.getxattr(p, "user.k", follow_symlinks=False)
                except OSError:
                    x = None
                if x != child.xattrs.get("user.k"):
                    bad("%s: user.k is %r, model %r" % (p, x, child.xattrs.get("user.k")))
            if child.kind == "d":
                self.dir(child, p)


def is_whiteout(p, st):
    if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
        return True
    if stat.S_ISREG(st.st_mode) and st.st_size == 0:
        for ns in ("user.overlay.whiteout", "trusted.overlay.whiteout"):
            try:
                os.getxattr(p, ns, follow_symlinks=False)
                return True
            except OSError:
                pass
    return False


def upper_problems(cli, upper, mnt):
    """The upper layer after a phase: whiteouts, or what the view shows, and
    complete files; no two fold-equal names in a directory."""
    problems, entries = [], []
    whiteouts = set()
    bad = problems.append
    for dirpath, dirnames, filenames in os.walk(upper):
        rel = os.path.relpath(dirpath, upper)
        shown = set(os.listdir(os.path.join(mnt, rel))) if os.path.isdir(os.path.join(mnt, rel)) else None
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            st = os.lstat(p)
            entries.append((dirpath, n))
            if is_whiteout(p, st) or (ONE_SPELLING and n.startswith(".wh.")):
                whiteouts.add((dirpath, n))
                continue
            if shown is None or n not in shown:
                bad("upper %s: neither a whiteout nor in the view" % os.path.join(rel, n))
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    data = f.read()
                if not complete(data):
                    bad("upper %s: not a complete copy (%d bytes: %r...)" % (os.path.join(rel, n), len(data), data[:40]))
    if entries:
        # A whiteout may stay beside the object that took its group's place
        # under another spelling: the daemon moves the object in first and
        # removes the whiteout after, and a kill may fall in between.
        seen = {}
        for (d, n), k in zip(entries, fold_keys(cli, [os.fsencode(n) for _, n in entries])):
            if (d, n) in whiteouts:
                continue
            other = seen.setdefault((d, k), n)
            if other != n:
                bad("upper %s: %r and %r are fold-equal" % (d, other, n))
    return problems


def settle(verifier, res, mnt):
    wid = res["next"].wid
    m = os.path.join(mnt, "w%d" % wid)
    candidates = [res["model"]]
    if res["pending"]:
        op, args = res["pending"]
        for variant in [args] + ([(args[0], b"")] if op in ("create", "excl", "write") else []):
            c = copy.deepcopy(res["model"])
            c.apply(op, variant)
            candidates.append(c)
    problems = None
    for c in candidates:
        p = verifier.tree(c, m)
        if not p:
            return c, []
        problems = problems or p
    if res["pending"]:
        problems.append("w%d: in flight at the kill: %s%r" % (wid, res["pending"][0], res["pending"][1]))
    return None, problems


def shared_problems(mnt):
    bad = []
    for n in os.listdir(os.path.join(mnt, "shared")):
        p = os.path.join(mnt, "shared", n)
        if os.path.isfile(p) and not os.path.islink(p):
            with open(p, "rb") as f:
                data = f.read()
            if not stress.RECORD.match(data):
                bad.append("shared/%s holds %r" % (n, data[:40]))
    return bad


def main():
    ap = stress.arguments()
    ap.add_argument("--layers", type=int, default=4)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    roots, ws = ROOT_SPELLINGS, ("w%d", "W%d")
    # Spellings in a fixed order (stress.py makes case variants through a
    # set), so that a seed makes the same layers in every run.
    GROUPS[:] = [sorted(g) for g in GROUPS]
    if ONE_SPELLING:
        GROUPS[:] = [[g[0]] for g in GROUPS]
        roots, ws = ["ci", "cs", "shared"], ("w%d",)
    spellings = [s for g in GROUPS for s in g] + roots + [w % i for i in range(a.procs) for w in ws]
    keys = fold_keys(a.cli, [s.encode() for s in spellings])
    fold = dict(zip(spellings, (k.decode() for k in keys)))
    variants = {}
    for s in spellings:
        variants.setdefault(fold[s], []).append(s)

    paths = [os.path.join(a.dir, "l%d" % (i + 1)) for i in range(a.layers)]
    upper, work, mnt = (os.path.join(a.dir, n) for n in ("upper", "work", "mnt"))
    os.makedirs(upper)
    os.makedirs(work)
    os.makedirs(mnt, exist_ok=True)
    layers = Layers(rng, fold, variants, a.layers, a.procs)
    layers.write(paths, os.geteuid() == 0)
    lower_before = [tree_state(p) for p in paths]
    opts = "lowerdir=%s,upperdir=%s,workdir=%s" % (":".join(paths), upper, work)
    daemon = Daemon(a.cfs, ["-o", opts, "overlay"], mnt, os.path.join(a.dir, "daemon.log"))
    verifier = ViewVerifier(variants, fold, rng)

    daemon.start()
    workers = [(Worker(i, GROUPS, variants, a.seed * 1000 + i), layers.model(i)) for i in range(a.procs)]
    problems = []
    for i, (w, model) in enumerate(workers):
        problems += verifier.tree(model, os.path.join(mnt, "w%d" % i))
    if problems:
        print("\n".join(problems[:30]), file=sys.stderr)
        raise SystemExit("the view of the lower layers is not their merge: %d problems" % len(problems))
    def lower_problems():
        return ["the lower layer %s changed" % p
                for p, before in zip(paths, lower_before) if tree_state(p) != before]

    totals, outcomes = run_phases(
        workers, mnt, a.dir, a.ops, a.kills, rng, daemon,
        lambda res: settle(verifier, res, mnt),
        lambda: upper_problems(a.cli, upper, mnt) + shared_problems(mnt) + lower_problems())
    daemon.stop()
    exdev = sum(n for (op, got), n in outcomes.items() if got == "EXDEV")
    print("overlay stress: %d layers (%d whiteouts), %d procs, %d model-checked operations "
          "(%d refused as the model predicted, %d EXDEV), %d shared, %d kills survived, "
          "%d operations in flight at a kill" % (
              a.layers, layers.whiteouts, a.procs, totals["ops"], totals["errors"], exdev,
              totals["shared"], totals["kills"], totals["inflight"]))


if __name__ == "__main__":
    main()
