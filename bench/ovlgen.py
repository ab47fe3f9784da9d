#!/usr/bin/env python3
"""The trees of the overlay benchmark (bench/overlay.sh): a mod list.

  ovlgen.py layers OUT MODS FILES SEED [--uniform] [--groups G]
      The lower trees OUT/l000.. (l000 on top) of MODS mods with FILES
      files in all; writes OUT/lowerdir (the lowerdir= value, top first).
      --uniform: every mod spells every directory and shared file name the
      same way (no case conflicts: what fuse-overlayfs can merge too).
      --groups G: the same mods merged into G layers (consecutive mods in one
      layer, the higher one winning, each directory spelled by the highest
      mod that has it): the same view over fewer layers.
  ovlgen.py merged DEST MODS FILES SEED
      The view those layers give, written as one plain tree into DEST (the
      "copy": bench/overlay.sh fills it through a casefoldfs mount, +F).
  ovlgen.py lists OUT MODS FILES SEED K
      OUT/files (every file of the view, as the view spells it, sorted),
      OUT/dirs (every directory), OUT/miscased (K random files, each letter's
      case flipped at random), OUT/exact (the same K as the view spells
      them), OUT/entries (the number of names in the view).

Every mod is a few directories of a game's Data tree (Textures/Armor/Iron,
Meshes/Weapons/Steel, ...), each mod spelling the shared directories its own
way (Data, data, DATA; Textures, textures, TEXTURES, ...), with its own files
and, one in five, files of a shared pool that the mods override (in another
spelling too), and a plugin Data/MODNAME.esp.  Names are ASCII, so the fold
here is str.lower.
"""
import os
import random
import sys

TOPS = ["Textures", "Meshes", "Sounds", "Scripts", "Interface", "SKSE"]
SUBS = ["Armor", "Weapons", "Clutter", "Actors", "Landscape", "Effects", "Architecture", "Furniture"]
KINDS = ["Iron", "Steel", "Glass", "Ebony"]
EXT = {"Textures": ".dds", "Meshes": ".nif", "Sounds": ".wav", "Scripts": ".pex",
       "Interface": ".swf", "SKSE": ".ini"}
POOL = 50            # shared file names per leaf directory


def spell(word, rng, uniform):
    if uniform:
        return word
    return rng.choice([word, word.lower(), word.upper(), word.capitalize()])


def mods(n, files, seed, uniform):
    """Mod i (0 is the top): a list of (path components, contents)."""
    rng = random.Random(seed)
    per = max(1, files // n)
    out = []
    for i in range(n):
        data = spell("Data", rng, uniform)
        leaves = rng.sample([(t, s, k) for t in TOPS for s in SUBS for k in KINDS], rng.randint(2, 5))
        spelled = {}
        fl = [([data, "mod%03d.esp" % i], b"plugin of mod %d\n" % i)]
        for j in range(per - 1):
            t, s, k = leaves[j % len(leaves)]
            for w in (t, s, k):
                spelled.setdefault(w, spell(w, rng, uniform))
            if rng.random() < 0.2:
                base = "common_%03d%s" % (rng.randrange(POOL), EXT[t])
                name = spell(base, rng, uniform)
            else:
                name = "m%03d_%05d%s" % (i, j, EXT[t])
            body = b"%s/%s/%s/%s from mod %d\n" % (t.encode(), s.encode(), k.encode(), name.encode(), i)
            fl.append(([data, spelled[t], spelled[s], spelled[k], name], body * rng.randint(1, 8)))
        out.append(fl)
    return out


def layer_files(fl):
    """A layer's files, the first of fold-equal paths winning, every
    directory spelled by its first appearance (one spelling per layer)."""
    dirs, seen, out = {}, set(), []
    for comps, body in fl:
        key = tuple(c.lower() for c in comps)
        if key in seen:
            continue
        seen.add(key)
        path = []
        for n in range(1, len(comps)):
            path.append(dirs.setdefault(key[:n], comps[n - 1]))
        out.append((path + [comps[-1]], body))
    return out


def view(ms):
    """The merged view of mods (top first): shown path -> contents."""
    return dict(("/".join(p), b) for p, b in layer_files([f for fl in ms for f in fl]))


def write(root, files):
    made = set()
    for comps, body in files:
        d = os.path.join(root, *comps[:-1])
        if d not in made:
            os.makedirs(d, exist_ok=True)
            made.add(d)
        with open(os.path.join(d, comps[-1]), "wb") as f:
            f.write(body)


def miscase(s, rng):
    while True:
        t = "".join(c.swapcase() if c.isalpha() and rng.random() < 0.5 else c for c in s)
        if t != s or not any(c.isalpha() for c in s):
            return t


def main():
    cmd, out, n, files, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    uniform = "--uniform" in sys.argv
    ms = mods(n, files, seed, uniform)
    if cmd == "layers":
        groups = int(sys.argv[sys.argv.index("--groups") + 1]) if "--groups" in sys.argv else n
        size = -(-n // groups)
        layers = [[f for fl in ms[g:g + size] for f in fl] for g in range(0, n, size)]
        names = []
        for i, fl in enumerate(layers):
            names.append(os.path.join(out, "l%03d" % i))
            os.makedirs(names[-1])
            write(names[-1], layer_files(fl))
        with open(os.path.join(out, "lowerdir"), "w") as f:
            f.write(":".join(names) + "\n")
    elif cmd == "merged":
        write(out, [(p.split("/"), b) for p, b in view(ms).items()])
    elif cmd == "lists":
        k = int(sys.argv[6])
        v = sorted(view(ms))
        dirs = sorted({p.rsplit("/", n)[0] for p in v for n in range(1, p.count("/") + 1)})
        rng = random.Random(seed + 1)
        pick = rng.sample(v, min(k, len(v)))
        for name, lines in (("files", v), ("dirs", dirs), ("exact", pick),
                            ("miscased", [miscase(p, rng) for p in pick])):
            with open(os.path.join(out, name), "w") as f:
                f.write("".join(x + "\n" for x in lines))
        with open(os.path.join(out, "entries"), "w") as f:
            f.write("%d\n" % (len(v) + len(dirs)))
    else:
        raise SystemExit("usage: see bench/ovlgen.py")


if __name__ == "__main__":
    main()
