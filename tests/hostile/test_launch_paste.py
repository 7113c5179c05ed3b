#!/usr/bin/env python3
"""A pasted `preflight launch` runs only the engine (ctest launch_paste).

`launch` prints a shell script: comment lines that describe the plan and the
engine's command. Text in it comes from files and arguments (the model folder's
name, config.json's architectures, a catalogue GPU's name), so each of 1,000
generated hostile names and configs is launched, its script checked by
`bash -n`, then sourced by bash with the engine commands stubbed, in an empty
folder: every injected command would create a file there, and none may.
The names carry newlines, carriage returns, command substitutions, quotes,
semicolons, escape sequences and Unicode line separators.

Usage: test_launch_paste.py PATH/TO/preflight [COUNT]
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

PIECES = ["\n", "\r", "\r\n", "\n\n", ";", "&&", "|", "`touch {canary}`", "$(touch {canary})", "\ntouch {canary}\n",
          "'", '"', "\\", "\n#", "\x1b[2J", "\x0b", "\x0c", "\u2028", "\u2029", "\u0085", "$'\\n'", "${IFS}", "*",
          "!!", "\ttouch {canary}", "\n\ttouch {canary} #", "\u202e", "{a,b}", "~", "<(touch {canary})", ">{canary}"]
WORDS = ["model", "Qwen3-8B", "touch {canary}", "x", "..", "-rf", "--revision", "=", " "]


def hostile(rng, canary):
    parts = [rng.choice(WORDS if rng.random() < 0.4 else PIECES) for _ in range(rng.randint(1, 6))]
    text = "".join(parts).replace("{canary}", canary)
    return text.replace("/", "_").replace("\0", "")[:200] or "x"


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__)
        return 2
    binary = os.path.abspath(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) == 3 else 1000
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "data", "models", "qwen3-0.6b", "config.json"), encoding="utf-8") as f:
        base_config = json.load(f)
    rng = random.Random(20261207)
    work = tempfile.mkdtemp(prefix="preflight-paste-")
    failures, launched = [], 0
    try:
        for i in range(count):
            canary = "PWNED_%d" % i
            case = os.path.join(work, "case%d" % i)
            os.makedirs(case)
            folder = os.path.join(case, hostile(rng, canary))
            try:
                os.makedirs(folder, exist_ok=True)
            except OSError:
                folder = os.path.join(case, "m")
                os.makedirs(folder)
            config = dict(base_config)
            if i % 2 == 1:
                # An architecture with no description: the generic reading names architectures[0].
                config["model_type"] = "zz_unknown_" + str(i)
                config["architectures"] = [hostile(rng, canary)]
            with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
                json.dump(config, f)
            engine = "vllm" if i % 4 < 2 else "sglang"
            done = subprocess.run([binary, "launch", "--gpus", "1xH100", "--engine", engine, "--context", "8K", "--",
                                   folder], capture_output=True, text=True, cwd=case, timeout=60)
            if done.returncode not in (0, 1):
                failures.append("case %d: launch exited %d: %s" % (i, done.returncode, done.stderr.strip()[:200]))
                continue
            launched += 1
            script = os.path.join(case, "c.sh")
            with open(script, "w", encoding="utf-8") as f:
                f.write(done.stdout)
            syntax = subprocess.run(["bash", "-n", script], capture_output=True, text=True)
            if syntax.returncode != 0:
                failures.append("case %d: bash -n: %s" % (i, syntax.stderr.strip()[:200]))
            sandbox = os.path.join(case, "run")
            os.makedirs(sandbox)
            subprocess.run(["bash", "-c", "vllm() { :; }; python() { :; }; . ../c.sh"], cwd=sandbox,
                           capture_output=True, text=True, timeout=60)
            made = os.listdir(sandbox) + [n for n in os.listdir(case) if n.startswith("PWNED")]
            if made:
                failures.append("case %d (%s, name %r): the pasted script created %s" % (i, engine, folder, made))
            for line in done.stdout.splitlines():
                if any(ord(c) < 0x20 and c != "\t" for c in line) or "\u2028" in line or "\u0085" in line:
                    failures.append("case %d: a raw control character in the line %r" % (i, line[:120]))
                    break
            shutil.rmtree(case, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for failure in failures[:20]:
        print("FAIL: " + failure)
    print("%d hostile names and configs launched, %d scripts pasted, %d problem(s)" % (count, launched, len(failures)))
    if launched < count * 0.9:
        print("FAIL: only %d of %d launches produced a script" % (launched, count))
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
