#!/usr/bin/env python3
"""Runs README.md's shell blocks as printed (tests/install/readme.sh).

    readme_blocks.py README MODE CHECKOUT
    readme_blocks.py man/PAGE.in MODE CHECKOUT

A manual page's template marks a .nf block to run with the roff comment
.\\" tests/install/readme.sh: user root (unmarked ones, such as fstab
lines, are text); its roff escapes are undone (\\- is -, \\e is \\).

Every ```sh block must be preceded by a comment saying who runs it:
<!-- tests/install/readme.sh: user root --> (either or both), or
<!-- tests/install/readme.sh: skip: REASON -->; an unmarked block fails
the test, so a new block cannot go unproven.  The blocks whose MODE is
given run in order, each in a fresh bash (pipefail; each command line must succeed) with the
caller's environment and HOME.  A transcript ("$ COMMAND" lines, each
followed by the output it prints, if any) runs in CHECKOUT ("From the
checkout"), one command at a time, and each printed output must be what
the command prints; other blocks run in HOME.
"""
import os
import re
import shlex
import subprocess
import sys

TAG = re.compile(r"<!-- tests/install/readme\.sh: (.*?) -->")


def blocks(text):
    """(line number, tag, lines) of every ```sh block."""
    lines = text.split("\n")
    found, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            tag = TAG.fullmatch(lines[i - 1].strip()) if i else None
            end = lines.index("```", i + 1)
            found.append((i + 1, tag.group(1) if tag else None, lines[i + 1:end]))
            i = end
        i += 1
    return found


def roff_blocks(text):
    """(line number, tag, lines) of every marked .nf block of a template."""
    lines = text.split("\n")
    found = []
    for i, line in enumerate(lines):
        tag = TAG.fullmatch(line.replace('.\\" ', "<!-- ", 1) + " -->")
        if not tag or not line.startswith('.\\" '):
            continue
        body, j = [], i + 1
        while lines[j] != ".fi":
            if not lines[j].startswith("."):
                body.append(lines[j].replace("\\-", "-").replace("\\e", "\\"))
            j += 1
        found.append((i + 2, tag.group(1), body))
    return found


def commands(body):
    """A transcript's (command, expected output lines) pairs."""
    pairs = []
    for line in body:
        if line.startswith("$ "):
            pairs.append([line[2:], []])
        elif pairs and pairs[-1][0].endswith("\\"):
            pairs[-1][0] += "\n" + line
        elif pairs:
            pairs[-1][1].append(line)
    return pairs


def checked(body):
    """The block as a script that stops at the first command line that fails
    (set -e would let `mkdir x && chattr +F x` fail unnoticed)."""
    logical, script = [], []
    for line in body:
        if logical and logical[-1].endswith("\\"):
            logical[-1] += "\n" + line
        elif line.strip() and not line.lstrip().startswith("#"):
            logical.append(line)
    for cmd in logical:
        script.append(cmd)
        script.append('rc=$?; [ $rc = 0 ] || { echo "exit $rc: " %s; exit 1; }'
                      % shlex.quote(cmd))
    return "\n".join(script)


def run(script, cwd):
    return subprocess.run(["bash", "-o", "pipefail", "-c", script], cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          stdin=subprocess.DEVNULL, timeout=600)


def main():
    readme, mode, checkout = sys.argv[1:4]
    failed = ran = 0
    text = open(readme, encoding="utf-8").read()
    where = os.path.basename(readme)
    for line, tag, body in (roff_blocks(text) if readme.endswith(".in") else blocks(text)):
        if tag is None:
            print(f"{where}:{line}: a sh block without a tests/install/readme.sh comment")
            failed += 1
            continue
        if tag.startswith("skip: ") or mode not in tag.split():
            continue
        ran += 1
        if any(l.startswith("$ ") for l in body):
            for cmd, want in commands(body):
                p = run(checked([cmd]), checkout)
                if p.returncode != 0 or (want and p.stdout.rstrip("\n").split("\n") != want):
                    print(f"{where}:{line}: `{cmd}` gave (exit {p.returncode}):\n{p.stdout}"
                          + (f"expected:\n" + "\n".join(want) if want else ""))
                    failed += 1
                    break
        else:
            p = run(checked(body), os.environ["HOME"])
            if p.returncode != 0:
                print(f"{where}:{line}: the block failed (exit {p.returncode}):\n{p.stdout}")
                failed += 1
        print(f"{where}:{line}: ran as {mode}")
    if ran == 0:
        print(f"no block for {mode}")
        failed += 1
    sys.exit(1 if failed else 0)


main()
