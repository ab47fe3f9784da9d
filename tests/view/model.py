#!/usr/bin/env python3
"""A model-based random test of an overlay view's fold-equal names (issue 33).

  model.py --cfs DAEMON --cli CASEFOLD --dir T --procs N --ops K
                   --phases P [--seed S]

Three lower layers under T (T/l1 on top) and an upper layer.  Each worker owns
a few groups of fold-equal spellings (case, NFC/NFD, sharp s, the Kelvin
sign: which of them fold together is the CLI's word, `casefold fold`), and
each tree holds, in the root and in a directory every tree spells its own
way, none, one or two spellings of each group — twins in one tree's
directory included.  The model is what the view must show: a casefolded
directory in which the topmost tree holding a group gives all its names
(twins stay two entries), a name finds its exact spelling, else the
bytewise smallest of its group.  The workers run random reads, appends,
exclusive and truncating creates, unlinks, renames (onto twins, across the
two directories) and chmods through the view, each against its own part of
the model, checking every answer; after each phase the whole view is
compared with the model (every name listed, content, mode), the view is
remounted and compared again.  Exit status 0 when nothing differed.
With CF_MODEL_LOG=PREFIX each worker writes its operations and answers to
PREFIX.w<N>, to replay a difference.
"""
import errno
import multiprocessing
import os
import random
import sys
import unicodedata

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fs"))
from daemon import Daemon  # noqa: E402
from stress import arguments, fold_keys  # noqa: E402

SUFFIXES = [
    ["readme", "README", "ReadMe"],
    ["straße", "STRASSE", "strasse", "Straße"],
    [unicodedata.normalize("NFC", "café"), unicodedata.normalize("NFD", "café"), "CAFÉ"],
    ["\u212aelvin", "kelvin", "KELVIN"],
]
DIR_SPELLINGS = ["Sub", "SUB", "sub"]   # the directory, per tree (l1 first)
LAYERS = 3


def names_of(wid):
    return [["w%d%s" % (wid, s) for s in group] for group in SUFFIXES]


class View:
    """One worker's part of the model: dir ("" or "Sub") -> {spelling: [data, mode]}."""

    def __init__(self, key, dirs):
        self.key, self.dirs = key, dirs

    def resolve(self, d, name):
        entries = self.dirs[d]
        if name in entries:
            return name
        same = [s for s in entries if self.key[s] == self.key[name]]
        return min(same, key=lambda s: s.encode()) if same else None


def make_layers(top, procs, rng, key):
    """Writes the lower layers; returns the model of the view they make."""
    model = {}
    for li in range(LAYERS):
        os.makedirs(os.path.join(top, "l%d" % (li + 1), DIR_SPELLINGS[li]))
    for wid in range(procs):
        dirs = {"": {}, "Sub": {}}
        for group in names_of(wid):
            for d in dirs:
                shown = None
                for li in range(LAYERS):
                    k = rng.choice([0, 0, 1, 1, 2]) if li < LAYERS - 1 else rng.choice([0, 1, 2])
                    picked = rng.sample(group, k)
                    base = os.path.join(top, "l%d" % (li + 1), DIR_SPELLINGS[li] if d else "")
                    for s in picked:
                        data = ("l%d:%s\n" % (li + 1, s)).encode()
                        with open(os.path.join(base, s), "wb") as f:
                            f.write(data)
                        if shown is None or shown == li:
                            shown = li
                            dirs[d][s] = [data, 0o644]
        model[wid] = dirs
    return model


def apply(v, op, args):
    """The model's answer to one operation: None, data (read) or an errno name."""
    if op == "read":
        d, n = args
        s = v.resolve(d, n)
        return v.dirs[d][s][0] if s else "ENOENT"
    if op == "append":
        d, n, rec = args
        s = v.resolve(d, n)
        if not s:
            return "ENOENT"
        v.dirs[d][s][0] += rec
        return None
    if op in ("excl", "trunc"):
        d, n, rec = args
        s = v.resolve(d, n)
        if s and op == "excl":
            return "EEXIST"
        if s:
            v.dirs[d][s][0] = rec
        else:
            v.dirs[d][n] = [rec, 0o644]
        return None
    if op == "unlink":
        d, n = args
        s = v.resolve(d, n)
        if not s:
            return "ENOENT"
        del v.dirs[d][s]
        return None
    if op == "chmod":
        d, n, mode = args
        s = v.resolve(d, n)
        if not s:
            return "ENOENT"
        v.dirs[d][s][1] = mode
        return None
    if op == "rename":
        sd, sn, dd, dn = args
        s = v.resolve(sd, sn)
        if not s:
            return "ENOENT"
        t = v.resolve(dd, dn)
        if sd == dd and t == s:
            return None  # one entry under two spellings: nothing changes
        moved = v.dirs[sd].pop(s)
        v.dirs[dd][t or dn] = moved
        return None
    raise ValueError(op)


def run_op(mnt, op, args, dirname):
    def path(d, n):
        return os.path.join(mnt, dirname() if d else "", n)
    try:
        if op == "read":
            with open(path(*args), "rb") as f:
                return f.read()
        if op == "append":
            fd = os.open(path(args[0], args[1]), os.O_WRONLY | os.O_APPEND)
        elif op == "excl":
            fd = os.open(path(args[0], args[1]), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        elif op == "trunc":
            fd = os.open(path(args[0], args[1]), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        elif op == "unlink":
            os.unlink(path(*args))
            return None
        elif op == "chmod":
            os.chmod(path(args[0], args[1]), args[2])
            return None
        else:
            os.rename(path(args[0], args[1]), path(args[2], args[3]))
            return None
        try:
            os.write(fd, args[2])
        finally:
            os.close(fd)
        return None
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))


def worker(wid, mnt, dirs, key, ops, seed, out):
    rng = random.Random(seed)
    v = View(key, dirs)
    groups = names_of(wid)
    problems = []
    for i in range(ops):
        op = rng.choice(["read", "read", "append", "excl", "trunc", "unlink", "rename", "rename",
                         "chmod"])
        d = rng.choice(["", "Sub"])
        n = rng.choice(rng.choice(groups))
        rec = b"w%d:%d\n" % (wid, i)
        if op in ("read", "unlink"):
            args = (d, n)
        elif op == "chmod":
            args = (d, n, rng.choice([0o600, 0o640, 0o644, 0o664]))  # writable: the model has no permissions
        elif op == "rename":
            group = rng.choice(groups) if rng.random() < 0.5 else None
            dn = rng.choice(group or rng.choice(groups))
            args = (d, rng.choice(group) if group else n, rng.choice(["", "Sub"]), dn)
        else:
            args = (d, n, rec)
        got = run_op(mnt, op, args, lambda: rng.choice(DIR_SPELLINGS))
        want = apply(v, op, args)
        if os.environ.get("CF_MODEL_LOG"):
            with open("%s.w%d" % (os.environ["CF_MODEL_LOG"], wid), "a") as f:
                f.write("%d %s %r -> %r\n" % (i, op, args, got))
        if got != want:
            problems.append("w%d op %d %s%r: got %r, model %r" % (wid, i, op, args, got, want))
            break
    out.put((wid, v.dirs, problems))


def compare(mnt, model):
    """The whole view against the model: names listed, content, mode."""
    problems = []
    for d in ("", "Sub"):
        want = {}
        for dirs in model.values():
            want.update(dirs[d])
        base = os.path.join(mnt, d)
        listed = set(os.listdir(base)) - ({"Sub"} if d == "" else set())
        for n in sorted(listed ^ set(want)):
            problems.append("%s/%s: %s" % (d, n, "listed, not in the model" if n in listed
                                                 else "in the model, not listed"))
        for n in sorted(listed & set(want)):
            st = os.lstat(os.path.join(base, n))
            with open(os.path.join(base, n), "rb") as f:
                data = f.read()
            if data != want[n][0] or (st.st_mode & 0o7777) != want[n][1]:
                problems.append("%s/%s: %r mode %o, model %r mode %o" % (
                    d, n, data, st.st_mode & 0o7777, want[n][0], want[n][1]))
    return problems


def main():
    ap = arguments()
    ap.set_defaults(procs=1, ops=200)
    ap.add_argument("--phases", type=int, default=3)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    spellings = [s for w in range(a.procs) for g in names_of(w) for s in g]
    key = dict(zip(spellings, fold_keys(a.cli, [s.encode() for s in spellings])))
    for d in ("upper", "work", "mnt"):
        os.makedirs(os.path.join(a.dir, d))
    model = make_layers(a.dir, a.procs, rng, key)
    opts = "lowerdir=%s,upperdir=%s,workdir=%s" % (
        ":".join(os.path.join(a.dir, "l%d" % (i + 1)) for i in range(LAYERS)),
        os.path.join(a.dir, "upper"), os.path.join(a.dir, "work"))
    m = Daemon(a.cfs, ["-o", opts, "overlay"], os.path.join(a.dir, "mnt"),
               os.path.join(a.dir, "daemon.log"))
    m.start()
    problems = compare(m.mnt, model)
    done = 0
    for phase in range(a.phases):
        if problems:
            break
        out = multiprocessing.Queue()
        ps = [multiprocessing.Process(target=worker, args=(
            w, m.mnt, model[w], key, a.ops, rng.randrange(1 << 30), out)) for w in range(a.procs)]
        for p in ps:
            p.start()
        for _ in ps:
            wid, dirs, wp = out.get()
            model[wid] = dirs
            problems += wp
        for p in ps:
            p.join()
        done += a.ops * a.procs
        problems += ["phase %d, live: %s" % (phase, p) for p in compare(m.mnt, model)]
        m.stop()
        m.start()
        problems += ["phase %d, after a remount: %s" % (phase, p) for p in compare(m.mnt, model)]
    m.stop()
    shown = sum(len(d) for dirs in model.values() for d in dirs.values())
    print("overlay model: %d procs, %d operations in %d phases, %d names shown at the end, "
          "%d differences" % (a.procs, done, a.phases, shown, len(problems)))
    for p in problems[:20]:
        print("  " + p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
