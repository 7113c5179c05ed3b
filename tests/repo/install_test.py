#!/usr/bin/env python3
"""`cmake --install` gives a working tool (ctest `install`).

Installs the build into a fresh prefix, moves the prefix (the binary finds its
serve module relative to itself, so a relocated install still serves), then:
the installed binary plans Kimi K3, `serve` answers from the installed module
(lib/preflight/, not beside the binary), the man page is roff with the NAME and
OPTIONS sections, and the completions and documents are where bash-completion,
zsh and a reader look.

Usage: install_test.py BUILD_DIR
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

EXPECTED = [
    "bin/preflight",
    "lib/preflight/preflight-serve.so",
    "share/man/man1/preflight.1.gz",
    "share/bash-completion/completions/preflight",
    "share/zsh/vendor-completions/_preflight",
    "share/doc/preflight/README.md",
    "share/doc/preflight/LICENSE",
    "share/doc/preflight/CHANGELOG.md",
    "share/doc/preflight/cli.md",
]


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    build = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory(prefix="preflight-install-") as work:
        first = os.path.join(work, "first")
        done = subprocess.run(["cmake", "--install", build, "--prefix", first], capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stdout + done.stderr)
            print("FAIL: cmake --install exited %d" % done.returncode)
            return 1
        prefix = os.path.join(work, "moved")
        shutil.move(first, prefix)
        # GNUInstallDirs may say lib64 or lib/<triplet> on other systems; Debian's is lib.
        for path in EXPECTED:
            if not os.path.isfile(os.path.join(prefix, path)):
                failures.append("not installed: " + path)
        binary = os.path.join(prefix, "bin", "preflight")
        if os.path.exists(os.path.join(prefix, "bin", "preflight-serve.so")):
            failures.append("the serve module is installed beside the binary, not in lib/preflight/")

        plan = subprocess.run([binary, "plan", "--gpus", "8xB300", "--context", "1M", "--format", "json"],
                              capture_output=True, text=True, cwd=work)
        if plan.returncode != 0:
            failures.append("the installed binary's K3 plan exited %d: %s" % (plan.returncode, plan.stderr.strip()))
        else:
            doc = json.loads(plan.stdout)
            name = json.dumps(doc.get("model", {}))
            if "Kimi" not in name and "kimi" not in name:
                failures.append("the installed binary planned something other than Kimi K3: %s" % name[:200])
            else:
                print("ok: the installed binary plans Kimi K3 on 8 x B300 at 1M (exit 0)")

        version = subprocess.run([binary, "--version"], capture_output=True, text=True)
        if not re.fullmatch(r"preflight \d+\.\d+\.\d+ \(git ([0-9a-f]{12}(-dirty)?|unknown)\)\n", version.stdout):
            failures.append("--version printed %r" % version.stdout)

        server = subprocess.Popen([binary, "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        try:
            line = server.stdout.readline()
            m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if not m:
                failures.append("the installed serve did not start: %r %s" % (line, server.stderr.read()[-300:]
                                                                               if server.poll() is not None else ""))
            else:
                deadline = time.time() + 10
                while True:
                    try:
                        with urllib.request.urlopen("http://127.0.0.1:%s/api/gpus" % m.group(1), timeout=5) as r:
                            if r.status == 200 and json.loads(r.read()):
                                print("ok: the installed serve loads lib/preflight/preflight-serve.so and answers")
                            break
                    except OSError as e:
                        if time.time() > deadline:
                            failures.append("the installed serve does not answer: %s" % e)
                            break
                        time.sleep(0.2)
        finally:
            server.terminate()
            server.wait(timeout=10)

        man = os.path.join(prefix, "share/man/man1/preflight.1.gz")
        if os.path.isfile(man):
            with gzip.open(man, "rt", encoding="utf-8") as f:
                page = f.read()
            for marker in (".TH PREFLIGHT 1", ".SH NAME", ".SH OPTIONS", "\\-\\-gpus", ".SH EXIT STATUS"):
                if marker not in page:
                    failures.append("the man page lacks %s" % marker)
            if shutil.which("man"):
                rendered = subprocess.run(["man", "-l", man], capture_output=True, text=True,
                                          env=dict(os.environ, MANPAGER="cat", MANWIDTH="100"))
                if rendered.returncode != 0 or "--context" not in rendered.stdout:
                    failures.append("man -l cannot render the page: %s" % rendered.stderr[-300:])
    for failure in failures:
        print("FAIL: " + failure)
    if failures:
        return 1
    print("cmake --install: %d files in place, the installed tool plans and serves from a moved prefix"
          % len(EXPECTED))
    return 0


if __name__ == "__main__":
    sys.exit(main())
