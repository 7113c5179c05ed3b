#!/usr/bin/env python3
"""The README and docs/ say what the tool does (ctest `readme`).

- README.md is under 150 lines and opens with exactly two commands in its first
  sh block (.ci/run runs those two lines as they are written).
- Every other `preflight ...` line in the README's sh blocks runs, with the built
  binary first on PATH, and exits as documented: 0, or N when its comment says
  "exit N". A `preflight serve` line must start and answer on its port.
- A ```text block whose first line is `$ preflight ...` is that command's output,
  compared byte for byte.
- Lines quoting the engine validation figures ("dev set: **54 of 58** rows
  reproduced; mean absolute error ...") in README.md and docs/*.md equal what
  tools/validate_engines.py wrote to its --json files (ctest engine_validation
  and engine_validation_heldout).
- The JSON keys docs/plan.md names exist in a plan's JSON.
- Relative links in README.md and docs/*.md point at files that exist.

Usage: readme_test.py SOURCE_DIR BINARY DEV_JSON HELDOUT_JSON
"""
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

FAILURES = []


def fail(message):
    FAILURES.append(message)
    print("FAIL: " + message)


def fenced_blocks(text):
    """(language, first line number, lines) for each ``` block."""
    blocks, lines = [], text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if m:
            start, body = i + 1, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            blocks.append((m.group(1), start + 1, body))
        i += 1
    return blocks


def expected_exit(line):
    m = re.search(r"#.*\bexit (\d+)\b", line)
    return int(m.group(1)) if m else 0


def run_serve(line, env, cwd):
    words = shlex.split(line, comments=True)
    port = 8080
    if "--port" in words:
        port = int(words[words.index("--port") + 1])
    proc = subprocess.Popen(["bash", "-c", "exec " + line], env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.time() + 20
        while time.time() < deadline:
            if proc.poll() is not None:
                return "exited %d before answering: %s" % (proc.returncode, proc.stdout.read().decode()[-300:])
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/api/gpus" % port, timeout=2) as answer:
                    if answer.status == 200 and json.loads(answer.read()):
                        return None
            except (OSError, ValueError):
                time.sleep(0.2)
        return "no answer on port %d within 20 s" % port
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


def check_commands(readme, env, workdir):
    blocks = [b for b in fenced_blocks(readme) if b[0] == "sh"]
    if not blocks:
        fail("README.md has no sh block")
        return
    first = [l for l in blocks[0][2] if l.strip()]
    if len(first) != 2:
        fail("README.md's first sh block should hold exactly the two commands for a fresh machine, has %d lines"
             % len(first))
    elif "preflight plan" not in first[0] or "ctest" not in first[1]:
        fail("README.md's first two commands should set up and plan, then run ctest: %r" % first)
    ran = 0
    for _, line_number, body in blocks[1:]:
        for line in body:
            command = line.strip()
            if not command.startswith("preflight "):
                if command and not command.startswith("#"):
                    fail("README.md:%d: a line in an sh block that is not a preflight command: %s"
                         % (line_number, command))
                continue
            ran += 1
            if command.split()[1] == "serve":
                why = run_serve(command, env, workdir)
                if why:
                    fail("README.md: `%s`: %s" % (command, why))
                continue
            want = expected_exit(command)
            done = subprocess.run(["bash", "-c", command], env=env, cwd=workdir, capture_output=True, text=True,
                                  timeout=300)
            if done.returncode != want:
                fail("README.md: `%s` exited %d, the README says %d: %s"
                     % (command, done.returncode, want, (done.stderr or done.stdout).strip()[-300:]))
            elif not done.stdout.strip():
                fail("README.md: `%s` printed nothing" % command)
    print("README commands run: %d" % ran)
    if ran < 5:
        fail("README.md shows %d preflight commands; the tour should show the main ones" % ran)


def check_example_output(readme, env, workdir):
    examples = 0
    for language, line_number, body in fenced_blocks(readme):
        if language != "text" or not body or not body[0].startswith("$ preflight "):
            continue
        examples += 1
        command = body[0][2:]
        done = subprocess.run(["bash", "-c", command], env=env, cwd=workdir, capture_output=True, text=True,
                              timeout=300)
        if done.returncode not in (0, 1):
            fail("README.md:%d: `%s` exited %d" % (line_number, command, done.returncode))
        printed = done.stdout.rstrip("\n").split("\n")
        shown = body[1:]
        if printed != shown:
            for i, (a, b) in enumerate(zip(printed + [""] * len(shown), shown + [""] * len(printed))):
                if a != b:
                    fail("README.md:%d: the example output of `%s` differs from what it prints at line %d:\n"
                         "  README: %s\n  tool:   %s" % (line_number, command, i + 1, b, a))
                    break
    if examples != 1:
        fail("README.md should show one real example output (a ```text block starting with `$ preflight`), has %d"
             % examples)


FIGURES = re.compile(r"(dev set|held-out): \*\*(\d+) of (\d+)\*\* rows reproduced; mean absolute error weights "
                     r"([\d.]+)%, KV-cache tokens ([\d.]+)%, concurrency ([\d.]+)%")


def expected_figures(summary_path):
    with open(summary_path, encoding="utf-8") as f:
        head = json.load(f)["summary"]["headline"]

    def pct(key):
        value = head[key]["mae_pct"]
        return "n/a" if value is None else "%.2f" % value

    return (str(head["reproduced"]), str(head["rows"]), pct("weights_gib"), pct("kv_tokens"), pct("concurrency"))


def check_figures(root, dev_json, heldout_json):
    want = {"dev set": expected_figures(dev_json), "held-out": expected_figures(heldout_json)}
    seen_in_readme = set()
    pages = ["README.md"] + ["docs/" + n for n in sorted(os.listdir(os.path.join(root, "docs"))) if n.endswith(".md")]
    for page in pages:
        with open(os.path.join(root, page), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                for m in FIGURES.finditer(line):
                    quoted = m.groups()[1:]
                    expected = want[m.group(1)]
                    if quoted != expected:
                        fail("%s:%d: %s figures %s; tools/validate_engines.py prints %s of %s rows, weights %s%%, "
                             "KV-cache tokens %s%%, concurrency %s%%"
                             % (page, number, m.group(1), "/".join(quoted), *expected))
                    if page == "README.md":
                        seen_in_readme.add(m.group(1))
    for name in want:
        if name not in seen_in_readme:
            fail("README.md does not quote the %s validation figures (\"%s: **N of M** rows reproduced; ...\")"
                 % (name, name))


def has_key(doc, path):
    node = doc
    for part in path.split("."):
        if part == "*":
            return isinstance(node, dict) and bool(node)
        if part.endswith("[]"):
            part = part[:-2]
            if not isinstance(node, dict) or not isinstance(node.get(part), list) or not node[part]:
                return False
            node = node[part][0]
            continue
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def check_json_keys(root, env, workdir):
    with open(os.path.join(root, "docs", "plan.md"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("## JSON for scripts", 1)[-1].split("\n## ", 1)[0]
    keys = []
    for row in section.splitlines():
        if row.startswith("| `"):
            keys += re.findall(r"`([a-z_][a-z_.*\[\]]*)`", row.split("|")[1])
    if len(keys) < 5:
        fail("docs/plan.md: its JSON key table names %d keys" % len(keys))
    done = subprocess.run(["bash", "-c", "preflight plan --gpus 8xB300 --context 1M --engine vllm --format json"],
                          env=env, cwd=workdir, capture_output=True, text=True, timeout=300)
    doc = json.loads(done.stdout)
    for key in keys:
        if not has_key(doc, key):
            fail("docs/plan.md names the JSON key `%s`, which a plan's JSON does not have" % key)


def check_links(root):
    pages = ["README.md"] + ["docs/" + n for n in sorted(os.listdir(os.path.join(root, "docs"))) if n.endswith(".md")]
    for page in pages:
        with open(os.path.join(root, page), encoding="utf-8") as f:
            text = f.read()
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if re.match(r"^[a-z]+:", target):
                continue
            if not os.path.exists(os.path.join(root, os.path.dirname(page), target)):
                fail("%s links to %s, which does not exist" % (page, target))


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    root, binary, dev_json, heldout_json = sys.argv[1:]
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    lines = readme.count("\n")
    print("README.md: %d lines" % lines)
    if lines >= 150:
        fail("README.md has %d lines; keep it under 150 (reference material goes in docs/)" % lines)
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(os.path.abspath(binary)) + os.pathsep + env.get("PATH", "")
    env["HF_HUB_OFFLINE"] = "1"  # a README command must not need the network
    env["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="preflight-readme-cache-")
    with tempfile.TemporaryDirectory(prefix="preflight-readme-") as workdir:
        check_commands(readme, env, workdir)
        check_example_output(readme, env, workdir)
        check_json_keys(root, env, workdir)
    check_figures(root, dev_json, heldout_json)
    check_links(root)
    if FAILURES:
        print("%d problem(s)" % len(FAILURES))
        return 1
    print("README and docs agree with the tool")
    return 0


if __name__ == "__main__":
    sys.exit(main())
