#!/usr/bin/env python3
"""The model test of an overlay view's rule: one name per fold group (issue 41).

  model.py --cfs DAEMON --cli CASEFOLD --dir T --procs N --ops K
           --phases P [--changes C] [--seed S]

An upper layer and three lower layers under T (T/l1 on top), each holding,
for every group of fold-equal spellings, none, one or several of them —
files, directories, a file and a directory of one group, whiteouts (device
0/0 and .wh. files) — twins in one layer's directory included, and inside
each directory more groups the same way, two levels down.  The groups:
ASCII case, NFC and NFD, ß/SS/ẞ, the Kelvin sign, final sigma (which of
them fold together is the CLI's word, `casefold fold`).

The model is a case-insensitive tree: at most one name per group in every
directory.  It is built from the layers by the rule fs/view/DESIGN.md states,
worked out here again: the top layer holding the group gives the entry — a
directory if it holds one (its twins there merge into the one of the
smallest spelling), else the file of the smallest spelling (bytewise;
between equal spellings in twin directories, the one in the directory that
comes first by the same rule); below a directory, every directory of the
group merges until a layer holds a file or whiteout of it.  Each worker
owns a few groups of the root and runs random reads, appends, creates,
unlinks, mkdirs, rmdirs, renames, chmods, listings and stats through the
view, at any depth and by any spelling, each answer checked against its
part of the model; after each phase the whole view is compared with the
model (every name listed and its spelling, type, content, mode, no two
names of one group in a listing, each directory's inode number the same
as long as the model says it is the same directory), then remounted and
compared again.

Layer changes (issue 43): a fourth lower layer and a second upper one
(another profile's) wait beside the stack, filled the same way, and each
phase is cut into C + 1 parts with a random change of the stack between
two (`casefold view MNT layers`: a layer added on top or above another,
one removed, two swapped, a new lower stack, the upper layer switched
alone or with a new lower stack, which may hold the other upper layer as
a lower one).  After each the model is the rule worked out again from
the layers as they now are on disk (opaque directories included: the
view writes them), checked first against the model as the operations
left it (before the change, the same stack), then against the live view
and against a fresh mount of the new stack beside it: remount and live
change must show the same names, spellings, types, contents and modes.
Exit status 0 when nothing differed.  With
CF_MODEL_LOG=PREFIX each worker writes its operations and answers to
PREFIX.w<N>, to replay a difference.
"""
import errno
import itertools
import multiprocessing
import os
import random
import stat
import subprocess
import sys
import unicodedata

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from daemon import Daemon  # noqa: E402
from stress import arguments, fold_keys  # noqa: E402


def nfc(s):
    return unicodedata.normalize("NFC", s)


def nfd(s):
    return unicodedata.normalize("NFD", s)


# The root's groups (each worker has its own, prefixed), and those inside
# directories.
TOP = [
    ["readme.txt", "README.TXT", "ReadMe.txt"],
    ["Textures", "textures", "TEXTURES"],
    ["straße", "STRASSE", "strasse", "STRA\u1e9eE"],
    [nfc("café"), nfd("café"), nfc("CAFÉ")],
    ["\u212aelvin", "kelvin", "KELVIN"],
    ["σας.txt", "ΣΑΣ.TXT", "σασ.txt"],
]
INNER = [
    ["a.dds", "A.DDS", "A.dds"],
    ["Sub", "sub", "SUB"],
    ["ß", "SS", "ss", "\u1e9e"],
    [nfc("ä"), nfd("ä"), nfc("Ä")],
    ["k", "K", "\u212a"],
    ["ς", "σ", "Σ"],
]
LAYERS = ["upper", "l1", "l2", "l3"]   # the stack mounted first: layer 0 is the upper one
UPPERS = ["upper", "upper2"]           # each with its work directory, UPPER-work
POOL = ["l1", "l2", "l3", "l4"]        # lower layers a change may stack
MODES = [0o600, 0o640, 0o644, 0o664]
CHMODS = [0o700, 0o750, 0o755, 0o775]   # a directory stays searchable by its owner


def top_names(wid):
    return [["w%d-%s" % (wid, s) for s in g] for g in TOP]


# ---- The layers ---------------------------------------------------------

def fill(base, groups, depth, rng, layer):
    """Writes some spellings of each group into the directory base of the
    layer named layer (any of them may come to be the bottom one: each
    holds whiteouts too)."""
    for group in groups:
        counts = [0, 0, 0, 1, 1, 2] if layer in UPPERS else [0, 1, 1, 2, 2, 3]
        for s in rng.sample(group, min(rng.choice(counts), len(group))):
            path = os.path.join(base, s)
            kind = rng.choice("fffdddw")
            if kind == "d":
                os.mkdir(path)
                if depth < 2:
                    fill(path, INNER, depth + 1, rng, layer)
            elif kind == "f":
                with open(path, "wb") as f:
                    f.write(("%s:%s\n" % (layer, os.path.relpath(path, base))).encode())
                os.chmod(path, rng.choice(MODES))
            elif rng.random() < 0.5:
                os.mknod(path, stat.S_IFCHR | 0o600, 0)   # overlayfs's whiteout
            else:
                open(os.path.join(base, ".wh." + s), "wb").close()   # aufs's


# ---- The model ----------------------------------------------------------

class File:
    def __init__(self, data, mode):
        self.data, self.mode = data, mode


class Dir:
    ids = itertools.count(1)
    maker = None                   # who makes directories: (phase, worker)

    def __init__(self, movable=False):
        self.entries = {}          # fold key -> [spelling shown, File or Dir]
        self.ident = (Dir.maker, next(Dir.ids))  # the same directory: the same inode number
        self.movable = movable     # made through the view (rename: not EXDEV)


def opaque(path):
    """Whether a layer's directory hides those below it (markers.c's
    markers; the view itself writes user.overlay.opaque)."""
    for x in ("user.overlay.opaque", "trusted.overlay.opaque", "user.fuseoverlayfs.opaque"):
        try:
            if os.getxattr(path, x, follow_symlinks=False)[:1] == b"y":
                return True
        except OSError:
            pass
    return os.path.lexists(os.path.join(path, ".wh..wh..opq"))


def read_part(path):
    """(name, kind) of a layer's directory: f, d, or w (a whiteout)."""
    out = []
    for n in os.listdir(path):
        st = os.lstat(os.path.join(path, n))
        if n == ".wh..wh..opq":
            continue
        if n.startswith(".wh."):
            out.append((n[4:], "w"))
        elif stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
            out.append((n, "w"))
        else:
            out.append((n, "d" if stat.S_ISDIR(st.st_mode) else "f"))
    return out


def opened(parts):
    """Of one directory's parts (layer, path, X), in order of layer, those
    read: down to the first layer holding an opaque one, whose other parts
    (twins) still merge.  Their X."""
    out, stop = [], None
    for layer, path, x in parts:
        if stop is not None and layer > stop:
            break
        if opaque(path):
            stop = layer
        out.append(x)
    return out


def merge(parts, key):
    """The view of one directory: parts are (rank, layer, path), the
    directories of the layers it merges; a rank orders twins as the
    daemon reads them (layer, spelling, then the parent's rank)."""
    members = {}
    for rank, layer, path in opened([(p[1], p[2], p) for p in parts]):
        for n, kind in read_part(path):
            members.setdefault(key(n), []).append(
                (layer, n.encode(), rank, kind, os.path.join(path, n)))
    d = Dir()
    for k, ms in members.items():
        top = min(m[0] for m in ms)
        tops = [m for m in ms if m[0] == top]
        objs = [m for m in tops if m[3] != "w"]
        dirs = sorted((m for m in objs if m[3] == "d"), key=lambda m: (m[1], m[2]))
        if dirs:
            merged, closed = list(dirs), len(tops) != len(dirs)
            for layer in sorted({m[0] for m in ms if m[0] > top}):
                if closed:
                    break
                here = [m for m in ms if m[0] == layer]
                merged += [m for m in here if m[3] == "d"]
                closed = any(m[3] != "d" for m in here)
            merged = opened([(m[0], m[4], m) for m in merged])
            child = merge([((m[0], m[1], m[2]), m[0], m[4]) for m in merged], key)
            # An upper directory merging nothing moves (the others: EXDEV).
            child.movable = len(merged) == 1 and top == 0
            d.entries[k] = [dirs[0][1].decode(), child]
        elif objs:
            win = min(objs, key=lambda m: (m[1], m[2]))
            with open(win[4], "rb") as f:
                data = f.read()
            d.entries[k] = [win[1].decode(), File(data, stat.S_IMODE(os.lstat(win[4]).st_mode))]
    return d


class Model:
    """One worker's part of the view: the root's entries of its groups."""

    def __init__(self, key, root):
        self.key, self.root = key, root

    def parent(self, comps):
        """The directory comps[-1] is in, or an errno name."""
        d = self.root
        for c in comps[:-1]:
            e = d.entries.get(self.key(c))
            if e is None:
                return "ENOENT"
            if not isinstance(e[1], Dir):
                return "ENOTDIR"
            d = e[1]
        return d

    def apply(self, op, args):
        """The model's answer: None, bytes (read), a set (listing), a kind
        (stat) or an errno name."""
        comps = args[0]
        d = self.parent(comps)
        if isinstance(d, str):
            return d
        k = self.key(comps[-1])
        e = d.entries.get(k)
        if op == "read":
            return "ENOENT" if e is None else "EISDIR" if isinstance(e[1], Dir) else e[1].data
        if op == "stat":
            return "ENOENT" if e is None else "d" if isinstance(e[1], Dir) else "f"
        if op == "list":
            if e is None or not isinstance(e[1], Dir):
                return "ENOENT" if e is None else "ENOTDIR"
            return sorted(s for s, _ in e[1].entries.values())
        if op == "append":
            if e is None or isinstance(e[1], Dir):
                return "ENOENT" if e is None else "EISDIR"
            e[1].data += args[1]
            return None
        if op == "excl":
            if e is not None:
                return "EEXIST"
            d.entries[k] = [comps[-1], File(args[1], 0o644)]
            return None
        if op == "trunc":
            if e is not None and isinstance(e[1], Dir):
                return "EISDIR"
            if e is None:
                d.entries[k] = [comps[-1], File(args[1], 0o644)]
            else:
                e[1].data = args[1]
            return None
        if op == "unlink":
            if e is None or isinstance(e[1], Dir):
                return "ENOENT" if e is None else "EISDIR"
            del d.entries[k]
            return None
        if op == "mkdir":
            if e is not None:
                return "EEXIST"
            d.entries[k] = [comps[-1], Dir(movable=True)]
            return None
        if op == "rmdir":
            if e is None or not isinstance(e[1], Dir):
                return "ENOENT" if e is None else "ENOTDIR"
            if e[1].entries:
                return "ENOTEMPTY"
            del d.entries[k]
            return None
        if op == "chmod":
            if e is None:
                return "ENOENT"
            if isinstance(e[1], File):
                e[1].mode = args[1]
            return None
        if op == "rename":
            return self.rename(d, k, e, comps, args[1])
        raise ValueError(op)

    def rename(self, d, k, e, frm, to):
        dd = self.parent(to)   # the kernel walks both parents first
        if isinstance(dd, str):
            return dd
        if e is None:
            return "ENOENT"
        dk = self.key(to[-1])
        de = dd.entries.get(dk)
        if dd is d and dk == k:
            return None   # one entry under two spellings: nothing changes, as on ext4
        skeys, dkeys = [self.key(c) for c in frm], [self.key(c) for c in to]
        if len(dkeys) > len(skeys) and dkeys[:len(skeys)] == skeys:
            return "EINVAL"      # into itself (the kernel's check)
        if len(skeys) > len(dkeys) and skeys[:len(dkeys)] == dkeys:
            return "ENOTEMPTY"   # onto its own ancestor (the kernel's check)
        if isinstance(e[1], Dir):
            # the kernel checks the types, then the view the layers
            if de is not None and not isinstance(de[1], Dir):
                return "ENOTDIR"
            if not e[1].movable:
                return "EXDEV"   # as overlayfs without redirect_dir
            if de is not None and de[1].entries:
                return "ENOTEMPTY"
        elif de is not None and isinstance(de[1], Dir):
            return "EISDIR"
        del d.entries[k]
        dd.entries[dk] = [de[0] if de else to[-1], e[1]]
        return None


# ---- The view -----------------------------------------------------------

def run_op(mnt, op, args):
    path = os.path.join(mnt, *args[0])
    try:
        if op == "read":
            with open(path, "rb") as f:
                return f.read()
        if op == "stat":
            return "d" if stat.S_ISDIR(os.lstat(path).st_mode) else "f"
        if op == "list":
            return sorted(os.listdir(path))
        if op in ("append", "excl", "trunc"):
            flags = {"append": os.O_APPEND, "excl": os.O_CREAT | os.O_EXCL,
                     "trunc": os.O_CREAT | os.O_TRUNC}[op]
            fd = os.open(path, os.O_WRONLY | flags, 0o644)
            try:
                os.write(fd, args[1])
            finally:
                os.close(fd)
        elif op == "unlink":
            os.unlink(path)
        elif op == "mkdir":
            os.mkdir(path)
        elif op == "rmdir":
            os.rmdir(path)
        elif op == "chmod":
            os.chmod(path, args[1])
        else:
            os.rename(path, os.path.join(mnt, *args[1]))
        return None
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))


def pick_path(rng, groups):
    """A path into the worker's groups, 1 to 3 names deep, any spelling."""
    comps = [rng.choice(rng.choice(groups))]
    if rng.random() < 0.6:
        inner = rng.choice(INNER)
        comps.append(rng.choice(inner))
        if rng.random() < 0.3:
            comps[-1] = rng.choice(INNER[1])          # a Sub, then in it
            comps.append(rng.choice(rng.choice(INNER)))
    return comps


OPS = (["read"] * 4 + ["stat"] * 2 + ["list"] * 3 + ["append"] * 3 + ["excl"] * 2 +
       ["trunc"] * 2 + ["unlink"] * 3 + ["mkdir"] * 2 + ["rmdir"] * 3 + ["rename"] * 4 +
       ["chmod"] * 2)


def worker(wid, maker, mnt, root, key, ops, seed, out):
    rng = random.Random(seed)
    os.umask(0o022)
    Dir.maker = maker
    model = Model(key, root)
    groups = top_names(wid)
    problems = []
    for i in range(ops):
        op = rng.choice(OPS)
        comps = pick_path(rng, groups)
        rec = b"w%d:%d\n" % (wid, i)
        if op in ("append", "excl", "trunc"):
            args = (comps, rec)
        elif op == "chmod":
            args = (comps, rng.choice(CHMODS))
        elif op == "rename" and rng.random() < 0.3:
            # a directory of the root, to a name of the root (EXDEV unless made here)
            args = ([comps[0]], [rng.choice(rng.choice(groups))])
        elif op == "rename":
            args = (comps, pick_path(rng, groups))
        else:
            args = (comps,)
        got = run_op(mnt, op, args)
        want = model.apply(op, args)
        if os.environ.get("CF_MODEL_LOG"):
            with open("%s.w%d" % (os.environ["CF_MODEL_LOG"], wid), "a") as f:
                f.write("%d %s %r -> %r\n" % (i, op, args, got))
        if got != want:
            problems.append("w%d op %d %s %r: got %r, model %r" % (wid, i, op, args, got, want))
            break
    out.put((wid, model.root, problems))


def compare(mnt, root, key, inos, groups, where=""):
    """The view under mnt/where against the model's directory root; each
    of groups (lists of fold-equal spellings) looked up by every spelling
    too, which finds what the kernel keeps of other spellings (positive
    and negative dentries) after a change."""
    problems = []
    base = os.path.join(mnt, where)
    try:
        listed = os.listdir(base)
    except OSError as x:
        return ["%s: %s" % (where or ".", x)]
    keys = {}
    for n in listed:
        keys.setdefault(key(n), []).append(n)
    for k, ns in keys.items():
        if len(ns) > 1:
            problems.append("%s: %d names of one group listed: %s" % (where or ".", len(ns), ns))
    want = {s: (k, node) for k, (s, node) in root.entries.items()}
    for n in sorted(set(listed) ^ set(want)):
        problems.append("%s: %s" % (os.path.join(where, n), "listed, not in the model"
                                    if n in listed else "in the model, not listed"))
    for g in groups:
        e = root.entries.get(key(g[0]))
        for s in g:
            try:
                st = os.lstat(os.path.join(base, s))
                got = "d" if stat.S_ISDIR(st.st_mode) else "f"
            except OSError as x:
                got = errno.errorcode.get(x.errno, str(x.errno))
            if got != ("ENOENT" if e is None else "d" if isinstance(e[1], Dir) else "f"):
                problems.append("%s by the spelling %s: %s, model %s" % (
                    os.path.join(where, s), s, got, "nothing" if e is None else e[0]))
    for n in sorted(set(listed) & set(want)):
        node, path = want[n][1], os.path.join(base, n)
        try:
            st = os.lstat(path)
            if isinstance(node, Dir):
                if not stat.S_ISDIR(st.st_mode):
                    problems.append("%s: not a directory" % os.path.join(where, n))
                    continue
                if inos.setdefault(node.ident, st.st_ino) != st.st_ino:
                    problems.append("%s: inode number %d, was %d" % (
                        os.path.join(where, n), st.st_ino, inos[node.ident]))
                problems += compare(mnt, node, key, inos, INNER, os.path.join(where, n))
                continue
            with open(path, "rb") as f:
                data = f.read()
        except OSError as x:
            problems.append("%s: %s" % (os.path.join(where, n), x))
            continue
        if data != node.data or stat.S_IMODE(st.st_mode) != node.mode:
            problems.append("%s: %r mode %o, model %r mode %o" % (
                os.path.join(where, n), data, stat.S_IMODE(st.st_mode), node.data, node.mode))
    return problems


def differ(a, b, where=""):
    """Where two models of one directory differ (the model the operations
    kept, and the rule worked out again from the layers)."""
    problems = []
    for k in sorted(set(a.entries) | set(b.entries)):
        x, y = a.entries.get(k), b.entries.get(k)
        name = os.path.join(where, (x or y)[0])
        if x is None or y is None or x[0] != y[0] or type(x[1]) is not type(y[1]):
            problems.append("%s: kept %s, from the layers %s" % (
                name, x and (x[0], type(x[1]).__name__), y and (y[0], type(y[1]).__name__)))
        elif isinstance(x[1], Dir):
            if x[1].movable != y[1].movable:
                problems.append("%s: movable %s, from the layers %s" % (
                    name, x[1].movable, y[1].movable))
            problems += differ(x[1], y[1], name)
        elif (x[1].data, x[1].mode) != (y[1].data, y[1].mode):
            problems.append("%s: kept %r mode %o, from the layers %r mode %o" % (
                name, x[1].data, x[1].mode, y[1].data, y[1].mode))
    return problems


# ---- Layer changes --------------------------------------------------------

class Stack:
    """The view's layers: an upper one (UPPERS) and lower ones, top first,
    of POOL and the other upper layer."""

    def __init__(self, base, upper, lower):
        self.base, self.upper, self.lower = base, upper, list(lower)

    def path(self, name):
        return os.path.join(self.base, name)

    def workdir(self, upper=None):
        return self.path((upper or self.upper) + "-work")

    def options(self, workdir=None):
        """The mount's options: a layers file, as a mod manager writes it."""
        f = self.path("layers")
        self.write(f)
        return "layers=%s,upperdir=%s,workdir=%s" % (f, self.path(self.upper),
                                                    workdir or self.workdir())

    def write(self, f):
        with open(f, "w") as out:
            out.write("".join(self.path(n) + "\n" for n in self.lower))

    def model(self, key):
        names = [self.upper] + self.lower
        return merge([((i,), i, self.path(n)) for i, n in enumerate(names)], key)


def change(rng, stack):
    """A random change: the CLI's arguments and the stack after it."""
    others = [n for n in POOL + UPPERS if n != stack.upper and n not in stack.lower]
    kind = rng.choice(["add", "add", "remove", "swap", "set", "upper", "profile"])
    lower = list(stack.lower)
    if kind == "remove" and len(lower) < 2 or kind == "add" and not others:
        kind = "set"
    if kind == "swap" and len(lower) < 2:
        kind = "upper"
    if kind == "add":
        new = rng.choice(others)
        at = rng.randrange(len(lower))
        args = ["--add", stack.path(new)]
        if at or rng.random() < 0.5:   # above a layer, by its name or its path
            args += ["--above", rng.choice([lower[at], stack.path(lower[at])])]
        lower.insert(at, new)
        return args, Stack(stack.base, stack.upper, lower)
    if kind == "remove":
        gone = rng.choice(lower)
        lower.remove(gone)
        return ["--remove", rng.choice([gone, stack.path(gone)])], Stack(stack.base, stack.upper,
                                                                         lower)
    upper = stack.upper
    if kind in ("upper", "profile"):
        upper = [n for n in UPPERS if n != stack.upper][0]
        if upper in lower:
            kind = "profile"   # it leaves the lower stack in the same change
    if kind == "swap":
        i, j = rng.sample(range(len(lower)), 2)
        lower[i], lower[j] = lower[j], lower[i]
    elif kind in ("set", "profile"):
        pool = [n for n in POOL + UPPERS if n != upper]
        lower = rng.sample(pool, rng.randint(1, len(pool)))
    new = Stack(stack.base, upper, lower)
    args = []
    if kind != "upper":
        f = stack.path("layers.next")
        new.write(f)
        args = ["--set", f]
    if upper != stack.upper:
        args += ["--upper", stack.path(upper), "--workdir", new.workdir()]
    return args, new


def restack(a, m, rng, stack, root, key, groups, label):
    """One change made live, and checked: the model as the operations left
    it against the layers (the stack before), then the new stack's model
    against the live view and a fresh mount of it.  Returns the new stack,
    its model and the differences."""
    problems = ["%s, before: %s" % (label, p) for p in differ(root, stack.model(key))]
    args, new = change(rng, stack)
    r = subprocess.run([a.cli, "view", m.mnt, "layers"] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    what = "%s [%s] -> upper %s, lower %s" % (label, " ".join(args), new.upper,
                                             " ".join(new.lower))
    if os.environ.get("CF_MODEL_LOG"):
        with open(os.environ["CF_MODEL_LOG"] + ".changes", "a") as f:
            f.write(what + "\n")
    if r.returncode != 0:
        return stack, root, problems + ["%s: casefold view failed (%d): %s" % (
            what, r.returncode, r.stdout.decode(errors="replace").strip())]
    root = new.model(key)
    problems += ["%s, live: %s" % (what, p) for p in compare(m.mnt, root, key, {}, groups)]
    fresh = Daemon(a.cfs, ["-o", new.options(new.path("fresh-work")), "overlay"],
                   new.path("fresh"), m.log)
    fresh.start()
    problems += ["%s, a fresh mount: %s" % (what, p)
                 for p in compare(fresh.mnt, root, key, {}, groups)]
    fresh.stop()
    return new, root, problems


def main():
    ap = arguments()
    ap.set_defaults(procs=1, ops=200)
    ap.add_argument("--phases", type=int, default=3)
    ap.add_argument("--changes", type=int, default=0,
                    help="layer changes per phase, between parts of its operations")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.umask(0o022)
    spellings = sorted({s for w in range(a.procs) for g in top_names(w) for s in g} |
                       {s for g in INNER for s in g})
    folded = dict(zip(spellings, fold_keys(a.cli, [s.encode() for s in spellings])))

    def key(name):
        return folded.get(name, name.encode())

    stack = Stack(a.dir, LAYERS[0], LAYERS[1:])
    for n in UPPERS + POOL:
        os.makedirs(stack.path(n))
        for wid in range(a.procs):
            fill(stack.path(n), top_names(wid), 1, rng, n)
    for n in UPPERS + ["fresh"]:
        os.makedirs(stack.workdir(n))
    for n in ["mnt", "fresh"]:
        os.makedirs(stack.path(n))
    groups = [g for w in range(a.procs) for g in top_names(w)]
    root = stack.model(key)
    m = Daemon(a.cfs, ["-o", stack.options(), "overlay"], stack.path("mnt"),
               stack.path("daemon.log"))
    m.start()
    inos = {}
    problems = ["at the start: %s" % p for p in compare(m.mnt, root, key, inos, groups)]
    done = changes = 0
    owner = {key(s): w for w in range(a.procs) for g in top_names(w) for s in g}
    for phase in range(a.phases):
        for part in range(a.changes + 1):
            if problems:
                break
            if part:
                stack, root, more = restack(a, m, rng, stack, root, key, groups,
                                            "phase %d, change %d" % (phase, part))
                problems += more
                changes += 1
                inos = {}   # a remount may number directories otherwise
            ops = a.ops // (a.changes + 1) + (part < a.ops % (a.changes + 1))
            out = multiprocessing.Queue()
            ps = []
            for w in range(a.procs):
                mine = Dir()
                mine.entries = {k: e for k, e in root.entries.items() if owner[k] == w}
                ps.append(multiprocessing.Process(target=worker, args=(
                    w, (phase, part, w), m.mnt, mine, key, ops, rng.randrange(1 << 30), out)))
            for p in ps:
                p.start()
            for _ in ps:
                wid, mine, wp = out.get()
                root.entries = {k: e for k, e in root.entries.items() if owner[k] != wid}
                root.entries.update(mine.entries)
                problems += wp
            for p in ps:
                p.join()
            done += ops * a.procs
        if problems:
            break
        problems += ["phase %d, live: %s" % (phase, p)
                     for p in compare(m.mnt, root, key, inos, groups)]
        m.stop()
        m.args = ["-o", stack.options(), "overlay"]
        m.start()
        if a.changes:
            inos = {}   # a directory held across a change kept its number
        problems += ["phase %d, after a remount: %s" % (phase, p)
                     for p in compare(m.mnt, root, key, inos, groups)]
    m.stop()
    print("overlay model: %d procs, %d operations in %d phases, %d layer changes, "
          "%d differences" % (a.procs, done, a.phases, changes, len(problems)))
    for p in problems[:20]:
        print("  " + p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
