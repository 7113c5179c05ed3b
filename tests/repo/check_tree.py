#!/usr/bin/env python3
"""Rules the repository's own files keep, checked over the source tree.

  outside-paths     no file points outside the repository for data: a clone has
                    only what the repository holds (tests/data/reference has the
                    released files the tests read).
  history-comments  src/, app/, web/ and tests/ say what the code does and why;
                    the story of a change belongs in its commit message. No
                    file there names a tracker issue by number (an "issue"
                    followed by digits, anywhere), and no comment narrates a
                    change ("before this change", "until" a month).

Usage: check_tree.py SOURCE_DIR outside-paths|history-comments
Exit 0 when the rule holds; 1 with one line per place that breaks it.
"""
import os
import re
import sys

SKIP_DIRS = {".git", "node_modules", "build", "build-san"}
TEXT_SUFFIXES = {".cc", ".h", ".py", ".mjs", ".js", ".html", ".css", ".cmake", ".txt", ".sh", ".md",
                 ".json", ".csv", ".cmd", ".expect", ""}
# Built from parts so that this file does not match itself.
OUTSIDE = re.compile(r"\.\./" + "shared|/work/" + "shared|PROJECT_SOURCE_DIR\\}/\\.\\./")
ISSUE_NUMBER = re.compile(r"\b[Ii]ssue" + r" \d+")
HISTORY = re.compile(r"\b[Bb]efore this change\b|\buntil 20\d\d-\d\d")
COMMENT_STARTS = {".cc": ("//", "/*", "*"), ".h": ("//", "/*", "*"), ".mjs": ("//", "/*", "*"),
                  ".js": ("//", "/*", "*"), ".css": ("/*", "*"), ".py": ("#",), ".txt": ("#",),
                  ".cmake": ("#",), ".sh": ("#",), ".html": ("<!--", "//")}


def files(root, tops=None):
    for top in tops or [""]:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("build"))
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                if os.path.splitext(name)[1] in TEXT_SUFFIXES or name in ("run", "before-stop"):
                    yield path


def read_lines(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


def outside_paths(root):
    bad = []
    for path in files(root):
        for number, line in enumerate(read_lines(path), 1):
            if OUTSIDE.search(line):
                bad.append("%s:%d: %s" % (os.path.relpath(path, root), number, line.strip()[:120]))
    return bad


def comment_text(path, line):
    """The comment part of a line (a trailing // comment too), or ''."""
    starts = COMMENT_STARTS.get(os.path.splitext(path)[1])
    if not starts:
        return ""
    stripped = line.strip()
    if stripped.startswith(starts):
        return stripped
    marker = {"#": " #", "//": " //"}
    for start in starts:
        if start in marker and marker[start] in line:
            return line[line.index(marker[start]):]
    return ""


def history_comments(root):
    bad = []
    for path in files(root, ["src", "app", "web", "tests"]):
        for number, line in enumerate(read_lines(path), 1):
            if ISSUE_NUMBER.search(line):
                bad.append("%s:%d: %s" % (os.path.relpath(path, root), number, line.strip()[:120]))
                continue
            text = comment_text(path, line)
            if text and HISTORY.search(text):
                bad.append("%s:%d: %s" % (os.path.relpath(path, root), number, text.strip()[:120]))
    return bad


def main(argv):
    if len(argv) != 3 or argv[2] not in ("outside-paths", "history-comments"):
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    root = os.path.abspath(argv[1])
    bad = outside_paths(root) if argv[2] == "outside-paths" else history_comments(root)
    for line in bad:
        print(line)
    if bad:
        print("%s: %d place(s) break the rule (see this script's docstring)" % (argv[2], len(bad)))
        return 1
    print("%s: holds" % argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
