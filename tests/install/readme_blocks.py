#!/usr/bin/env python3
"""Runs README.md's shell blocks as printed (tests/install/readme.sh).

    readme_blocks.py README MODE CHECKOUT

Every ```sh block must be preceded by a comment saying who runs it:
<!-- tests/install/readme.sh: user root --> (either or both), or
<!-- tests/install/readme.sh: skip: REASON -->; an unmarked block fails
the test, so a new block cannot go unproven.  The blocks whose MODE is
given run in order, each in a fresh bash (errexit, pipefail) with the
caller's environment and HOME.  A transcript ("$ COMMAND" lines, each
followed by the output it prints, if any) runs in CHECKOUT ("From the
checkout"), one command at a time, and each printed output must be what
the command prints; other blocks run in HOME.
"""
import os
import re
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


def run(script, cwd):
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          stdin=subprocess.DEVNULL, timeout=600)


def main():
    readme, mode, checkout = sys.argv[1:4]
    failed = ran = 0
    for line, tag, body in blocks(open(readme, encoding="utf-8").read()):
        if tag is None:
            print(f"README.md:{line}: a sh block without a tests/install/readme.sh comment")
            failed += 1
            continue
        if tag.startswith("skip: ") or mode not in tag.split():
            continue
        ran += 1
        if any(l.startswith("$ ") for l in body):
            for cmd, want in commands(body):
                p = run(cmd, checkout)
                if p.returncode != 0 or (want and p.stdout.rstrip("\n").split("\n") != want):
                    print(f"README.md:{line}: `{cmd}` gave (exit {p.returncode}):\n{p.stdout}"
                          + (f"expected:\n" + "\n".join(want) if want else ""))
                    failed += 1
                    break
        else:
            p = run("\n".join(body), os.environ["HOME"])
            if p.returncode != 0:
                print(f"README.md:{line}: the block failed (exit {p.returncode}):\n{p.stdout}")
                failed += 1
        print(f"README.md:{line}: ran as {mode}")
    if ran == 0:
        print(f"no block for {mode}")
        failed += 1
    sys.exit(1 if failed else 0)


main()
