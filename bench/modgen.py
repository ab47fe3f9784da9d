#!/usr/bin/env python3
"""The trees of the live mod-stack benchmark (bench/overlay_live.sh).

  modgen.py stack OUT GAME MODS PER SEED
      OUT/game: a game's Data tree of GAME files (Data/Textures/Armor/Iron/...).
      OUT/mods/m0000..: MODS mods of PER files each (m0000 on top), and one
      more, OUT/mods/new, to enable live.  Each mod spells the game's
      folders its own way (Data, data, DATA; Textures, textures, TEXTURES,
      ...), as mods unpacked from Windows archives do, and holds its
      plugin, files of its own, and one in five overriding a game file.
      OUT/p1, OUT/p2: two profiles' overwrite folders (upper layers), and
      their work directories OUT/w1, OUT/w2 (OUT/fw1, OUT/fw2 for
      fuse-overlayfs).  OUT/stack.STATE (a layers file: one path a line,
      top first, the game last) and OUT/lowerdir.STATE (the same as a
      lowerdir string), for each state of the benchmark's changes: start
      (the mods over the game), enable (OUT/mods/new added on top), disable
      (then the middle mod removed), swap (then two mods exchanged) and
      profile (profile 2: the mods in the other order, over OUT/p2).
      OUT/game.exact: every game file as the game's tree spells it;
      OUT/game.asked: the same in lower case, as a game's engine asks for
      them (one spelling throughout: the kernel keeps one dentry per
      directory, which a lookup by yet another spelling would move).
      OUT/probes: a line per change, "CHANGE PATH CONTENT WINNER": a path
      (lower case) whose winner the change makes the one holding CONTENT
      (spaces as _), and that winner's path as its own layer spells it (the
      one a case-sensitive overlay finds).
  modgen.py many OUT LAYERS SEED
      OUT/many/l00000..: LAYERS - 1 small mods (a plugin and a texture, in
      their own spellings of the folders) over OUT/game as the bottom layer,
      OUT/many/layers their layers file; OUT/many/copy: the view they give
      as one plain tree (for a one-layer view of the same names);
      OUT/many/new, a mod to enable live, and OUT/many/probe (PATH CONTENT).

The changes: "enable" puts mods/new on top, which overrides a file no
other mod has; "disable" removes the middle mod, the only one overriding
another; "swap" exchanges two mods, the only two overriding a third, so the
lower one wins; "profile" switches to profile 2 and its overwrite folder,
which holds a fourth.  Names are ASCII: the fold is str.lower.
"""
import os
import random
import sys

TOPS = ["Textures", "Meshes", "Sounds", "Scripts", "Interface", "SKSE"]
SUBS = ["Armor", "Weapons", "Clutter", "Actors", "Landscape", "Effects", "Architecture", "Furniture"]
KINDS = ["Iron", "Steel", "Glass", "Ebony"]
EXT = {"Textures": ".dds", "Meshes": ".nif", "Sounds": ".wav", "Scripts": ".pex",
       "Interface": ".swf", "SKSE": ".ini"}
LEAVES = [(t, s, k) for t in TOPS for s in SUBS for k in KINDS]


def spell(word, rng):
    return rng.choice([word, word.lower(), word.upper(), word.capitalize()])


def write(path, body):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(body)


def game_files(n):
    """The game's files: (folders, name), as the game spells them."""
    out = []
    for i in range(n):
        t, s, k = LEAVES[i % len(LEAVES)]
        out.append((["Data", t, s, k], "g%05d%s" % (i, EXT[t])))
    return out


class Mod:
    """One mod's folders, each spelled its own way, and its files."""

    def __init__(self, root, rng):
        self.root, self.rng, self.spelled = root, rng, {}

    def dirs(self, comps):
        return [self.spelled.setdefault(c, spell(c, self.rng)) for c in comps]

    def put(self, comps, name, body):
        write(os.path.join(self.root, *self.dirs(comps), name), body)


def stack(out, ngame, nmods, per, seed):
    rng = random.Random(seed)
    game = game_files(ngame)
    for comps, name in game:
        write(os.path.join(out, "game", *comps, name), b"game %s\n" % name.encode())
    # Four game files the random overrides leave alone: the changes' probes.
    probes = game[:4]
    names = ["m%04d" % i for i in range(nmods)]
    mid, a, b = nmods // 2, nmods // 3, 2 * nmods // 3
    exact = {}   # probe -> (mod -> the path that mod spells it by)
    for m in names + ["new"]:
        mod = Mod(os.path.join(out, "mods", m), rng)
        mod.put(["Data"], "%s.esp" % m, b"plugin %s\n" % m.encode())
        leaves = rng.sample(LEAVES, rng.randint(1, 3))
        for j in range(per - 1):
            if rng.random() < 0.2:
                comps, name = game[rng.randrange(4, len(game))]
                name = spell(name, rng)
            else:
                t, s, k = leaves[j % len(leaves)]
                comps, name = ["Data", t, s, k], "%s_%03d%s" % (m, j, EXT[t])
            mod.put(comps, name, b"%s %s\n" % (m.encode(), name.encode()))
        for which, holders in ((0, ["new"]), (1, [names[mid]]), (2, [names[a], names[b]])):
            if m in holders:
                comps, name = probes[which]
                name = spell(name, rng)
                mod.put(comps, name, b"%s probe\n" % m.encode())
                exact.setdefault(which, {})[m] = "/".join(mod.dirs(comps) + [name])
    comps, name = probes[3]
    write(os.path.join(out, "p2", *comps, name), b"profile 2 overwrite\n")
    for d in ("p1", "p2", "w1", "w2", "fw1", "fw2"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    mods = [os.path.join(out, "mods", m) for m in names]
    gamedir = os.path.join(out, "game")
    enabled = [os.path.join(out, "mods", "new")] + mods
    disabled = [p for p in enabled if p != mods[mid]]
    swapped = list(disabled)
    i, j = swapped.index(mods[a]), swapped.index(mods[b])
    swapped[i], swapped[j] = swapped[j], swapped[i]
    for f, order in (("start", mods), ("enable", enabled), ("disable", disabled),
                     ("swap", swapped), ("profile", mods[::-1])):
        with open(os.path.join(out, "stack." + f), "w") as o:
            o.write("".join(p + "\n" for p in order + [gamedir]))
        with open(os.path.join(out, "lowerdir." + f), "w") as o:
            o.write(":".join(order + [gamedir]) + "\n")
    with open(os.path.join(out, "game.exact"), "w") as e, \
            open(os.path.join(out, "game.asked"), "w") as asked:
        for comps, name in game:
            p = "/".join(comps + [name])
            e.write(p + "\n")
            asked.write(p.lower() + "\n")
    with open(os.path.join(out, "probes"), "w") as o:
        path = ["/".join(comps + [name]) for comps, name in probes]
        for change, which, content, winner in (
                ("enable", 0, "new probe", exact[0]["new"]),
                ("disable", 1, "game " + probes[1][1], path[1]),
                ("swap", 2, "%s probe" % names[b], exact[2][names[b]]),
                ("profile", 3, "profile 2 overwrite", path[3])):
            o.write("%s %s %s %s\n" % (change, path[which].lower(), content.replace(" ", "_"),
                                       winner))


def many(out, layers, seed):
    """LAYERS - 1 small mods over the game (OUT/game, made by stack), the
    view they give as one tree, and one more mod to enable."""
    rng = random.Random(seed)
    base = os.path.join(out, "many")
    copy = os.path.join(base, "copy")
    paths = []
    for comps, name in game_files(sum(len(f) for _, _, f in os.walk(os.path.join(out, "game")))):
        write(os.path.join(copy, *comps, name), b"game %s\n" % name.encode())
    for i in range(layers):
        m = "l%05d" % i if i < layers - 1 else "new"
        t, s, k = rng.choice(LEAVES)
        files = [(["Data"], "%s.esp" % m, b"plugin %s\n" % m.encode()),
                 (["Data", t, s, k], m + EXT[t], b"%s\n" % m.encode())]
        mod = Mod(os.path.join(base, m), rng)
        for comps, name, body in files:
            mod.put(comps, name, body)
            if m != "new":
                write(os.path.join(copy, *comps, name), body)
        if m != "new":
            paths.append(mod.root)
    with open(os.path.join(base, "layers"), "w") as o:
        o.write("".join(p + "\n" for p in paths + [os.path.join(out, "game")]))
    with open(os.path.join(base, "probe"), "w") as o:
        o.write("data/new.esp plugin_new\n")


def main():
    cmd, out = sys.argv[1], sys.argv[2]
    if cmd == "stack":
        stack(out, int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
    elif cmd == "many":
        many(out, int(sys.argv[3]), int(sys.argv[4]))
    else:
        raise SystemExit("usage: see bench/modgen.py")


if __name__ == "__main__":
    main()
