#!/usr/bin/env python3
"""Byte-identity of the CLI's output across a change that must not alter it (a refactor,
a formatting pass, a speed-up).

Runs every command line of tests/identity/commands.txt and every tests/golden/*.cmd with
bash from tests/golden (as the golden tests do), and records, per line, the exit code and
the SHA-256 of stdout and of stderr.

  output_identity.py record BINARY OUT.json     # with the binary before the change
  output_identity.py compare BINARY OUT.json    # with the binary after: exit 1 on any difference

`record` also fails (exit 1) when a command ends outside the documented exit codes
(0 fits, 1 does not, 2 bad input): a crash, a signal or a timeout is never recorded as an
answer.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
COMMANDS = ROOT / "tests" / "identity" / "commands.txt"
EXIT_CODES = {0, 1, 2}


def command_lines() -> List[str]:
    lines = []
    for raw in COMMANDS.read_text(encoding="utf-8").splitlines():
        if raw.strip() and not raw.startswith("#"):
            lines.append(raw)
    for case in sorted(GOLDEN.glob("*.cmd")):
        first = case.read_text(encoding="utf-8").splitlines()
        # A server would not return; --version prints the git revision, which every change moves.
        if first and " serve" not in " " + first[0] and first[0].strip() != "--version":
            lines.append(first[0])
    return lines


def run(binary: str, args: str, timeout: float) -> Dict[str, object]:
    try:
        p = subprocess.run(["bash", "-c", '"$0" ' + args, binary], cwd=GOLDEN, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"code": "timeout", "stdout": "", "stderr": ""}
    return {"code": p.returncode, "stdout": hashlib.sha256(p.stdout).hexdigest(),
            "stderr": hashlib.sha256(p.stderr).hexdigest()}


def run_all(binary: str, jobs: int, timeout: float) -> Dict[str, Dict[str, object]]:
    lines = command_lines()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda a: run(binary, a, timeout), lines))
    return dict(zip(lines, results))


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["record", "compare"])
    p.add_argument("binary")
    p.add_argument("file", type=Path)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per command (default %(default)s)")
    a = p.parse_args(argv)
    binary = str(Path(a.binary).resolve())
    results = run_all(binary, a.jobs, a.timeout)
    if a.mode == "record":
        odd = [(line, r["code"]) for line, r in results.items() if r["code"] not in EXIT_CODES]
        a.file.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        for line, code in odd:
            print("exit %s: preflight %s" % (code, line[:200]))
        print("%d command lines recorded in %s; %d outside exit codes 0, 1, 2" % (len(results), a.file, len(odd)))
        return 1 if odd else 0
    before = json.loads(a.file.read_text(encoding="utf-8"))
    differ = [line for line, r in results.items() if line in before and before[line] != r]
    missing = [line for line in results if line not in before]
    for line in differ:
        b, r = before[line], results[line]
        what = [k for k in ("code", "stdout", "stderr") if b.get(k) != r.get(k)]
        print("differs (%s): preflight %s" % (", ".join(what), line[:200]))
    for line in missing:
        print("not recorded before: preflight %s" % line[:200])
    print("%d command lines: %d byte-identical, %d differ, %d not recorded before" % (
        len(results), len(results) - len(differ) - len(missing), len(differ), len(missing)))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
