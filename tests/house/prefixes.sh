#!/usr/bin/env bash
# A function's name says where it is (issue 42): in each wing of fs/, the
# prefix of every function a .c file gives to others (its first word; in
# kernel/, fk_ and the next word) is one file's, or the wing's map names
# it as a group in its prefix table (the first table whose first column is
# "prefix"), with exactly the files that hold it.  A name that begins with
# its own file's name (tree_mount in tree_mount.c) says its file already.
# Fails naming the prefix and its files, or a row that names files the
# prefix is not in.
set -u
root=${CF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
exec python3 -B - "$root/fs" <<'PY'
import os, re, sys

fs = sys.argv[1]
defined = re.compile(r'^(?!static\b)[a-z][\w \*]*?\b(\w+)\(', re.M)
bad = 0
for wing in sorted(d for d in os.listdir(fs) if os.path.isdir(os.path.join(fs, d))):
    held, wrong = {}, 0
    for f in sorted(os.listdir(os.path.join(fs, wing))):
        if not f.endswith('.c'):
            continue
        for name in defined.findall(open(os.path.join(fs, wing, f), encoding='utf-8').read()):
            words = name.split('_')
            n = 2 if wing == 'kernel' and words[0] == 'fk' else 1
            prefix = f[:-2] if name.startswith(f[:-2]) else '_'.join(words[:n])
            held.setdefault(prefix + '_', set()).add(f)
    groups, intable = {}, False
    for line in open(os.path.join(fs, wing, 'README.md'), encoding='utf-8').read().splitlines():
        if re.match(r'\|\s*prefix\s*\|', line):
            intable = True
        elif intable and line.startswith('|'):
            cells = line.split('|')
            for p in re.findall(r'`(\w+_)`', cells[1]):
                groups[p] = set(re.findall(r'`([\w.]+\.c)`', cells[-2]))
        elif intable:
            break
    for p, files in sorted(held.items()):
        if len(files) > 1 and groups.get(p) != files:
            print('FAIL: fs/%s: %s is in %s; fs/%s/README.md\'s prefix table %s' %
                  (wing, p, ', '.join(sorted(files)), wing,
                   'lists %s' % ', '.join(sorted(groups[p])) if p in groups else 'has no row for it'))
            wrong = 1
    for p in sorted(set(groups) - {p for p, f in held.items() if len(f) > 1}):
        print('FAIL: fs/%s/README.md\'s prefix table names %s, which is in %s' %
              (wing, p, ', '.join(sorted(held.get(p, ()))) or 'no file'))
        wrong = 1
    bad |= wrong
    if not wrong:
        print('fs/%s: %d prefixes, %d of them a group of files' %
              (wing, len(held), sum(len(f) > 1 for f in held.values())))
sys.exit(bad)
PY
