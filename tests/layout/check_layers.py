#!/usr/bin/env python3
"""The layers of src/ point down (docs/layout.md): a file may include headers of its own
folder and of the folders below it, never above. The order is written once, here.

Usage: check_layers.py SRC_DIR    (exit 0: every include points down; 1: a list of those
that do not, one line each: file:line: layer -> layer)."""
import os
import re
import sys

# From the bottom. The engine rooms, in their own order: the store knows no project
# concept; core (configuration, revisions, builds, metrics) stores through it; importers
# turn outside results into stored runs; prediction reads builds and the store; comparison
# runs, stores and may select through prediction; history and bisection drive comparisons;
# the queue's workers run comparisons, histories and bisections for jobs.
LAYERS = [
    "util",
    "binary",
    "collect",
    "profile",
    "analysis",
    "store",
    "core",
    "import",
    "predict",
    "compare",
    "history",
    "queue",
    "report",
    "cli",
]
RANK = {name: i for i, name in enumerate(LAYERS)}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"')


def check(src):
    bad = []
    seen = set()
    for root, _, files in os.walk(src):
        rel = os.path.relpath(root, src)
        layer = rel.split(os.sep)[0]
        if layer == ".":
            continue
        if layer not in RANK:
            bad.append(f"{rel}: folder '{layer}' has no place in the layer table "
                       "(tests/layout/check_layers.py): add it")
            continue
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            seen.add(layer)
            with open(path, encoding="utf-8", errors="replace") as f:
                for no, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    if target not in RANK:
                        continue  # a generated header in the build tree (report/assets.h)
                    if RANK[target] > RANK[layer]:
                        bad.append(f"{os.path.relpath(path, os.path.dirname(src))}:{no}: "
                                   f"{layer} -> {target} points up")
    missing = [l for l in LAYERS if l not in seen]
    for l in missing:
        bad.append(f"src/{l}: in the layer table but not in the tree: remove it")
    return bad


def main():
    if len(sys.argv) != 2:
        print("usage: check_layers.py SRC_DIR", file=sys.stderr)
        return 2
    bad = check(sys.argv[1])
    for line in bad:
        print(line)
    if bad:
        print(f"{len(bad)} include(s) point up or do not fit the table")
        return 1
    print("every include points down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
