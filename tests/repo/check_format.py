#!/usr/bin/env python3
"""Every C++ source (.cc, .h) of the repository is laid out as .clang-format says:
clang-format --dry-run --Werror over them, listing the files it would change.

Usage: check_format.py CLANG_FORMAT SOURCE_DIR
CLANG_FORMAT empty or not found fails with the way to install it (no test skips itself).
"""
import os
import subprocess
import sys
from pathlib import Path

SKIP_PARTS = {"node_modules", "build", ".git"}
SKIP_PREFIXES = ("tests/data/",)


def sources(root: Path):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_PARTS and not d.startswith("build")]
        for name in filenames:
            if name.endswith((".cc", ".h")):
                path = Path(dirpath) / name
                rel = path.relative_to(root).as_posix()
                if not rel.startswith(SKIP_PREFIXES):
                    yield path


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    tool, root = sys.argv[1], Path(sys.argv[2])
    if not tool or tool.endswith("NOTFOUND") or not Path(tool).exists():
        print("clang-format not found: scripts/install-deps.sh installs it (Debian package clang-format)")
        return 1
    files = sorted(sources(root))
    if not files:
        print("no C++ sources under %s" % root)
        return 1
    # One run over every file; each would-be change is reported as "PATH:LINE:COL: error: ...".
    p = subprocess.run([tool, "--dry-run", "--Werror", "--style=file"] + [str(f) for f in files],
                       capture_output=True, text=True)
    named = {str(f): f.relative_to(root).as_posix() for f in files}
    unformatted = sorted({named[line.split(":", 1)[0]] for line in p.stderr.splitlines()
                          if ": error:" in line and line.split(":", 1)[0] in named})
    if p.returncode != 0 and not unformatted:
        print("clang-format failed: %s" % p.stderr.strip()[:500])
        return 1
    for rel in unformatted:
        print("not in the house style: %s (run: clang-format -i %s)" % (rel, rel))
    print("%d C++ sources, %d not in the house style" % (len(files), len(unformatted)))
    return 1 if unformatted else 0


if __name__ == "__main__":
    sys.exit(main())
