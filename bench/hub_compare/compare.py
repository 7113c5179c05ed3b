#!/usr/bin/env python3
"""preflight's hub metadata against @huggingface/hub's parseSafetensorsMetadata
(2.17.5, pinned by package-lock.json), both reading the same loopback fake hub
(tests/hub/fake_hub.py) that serves DeepSeek-V3 (163 shards) and Kimi K3 (96
shards) with real header bytes built from their tensor lists.

Whole processes, best of N runs each: `preflight inspect ORG/NAME@COMMIT
--no-cache --format json --shard-headers all|lengths` and `node parse.mjs`.
Prints wall times, peak memory and the ratio (@huggingface/hub / preflight).
Figures for people; nothing is asserted.

Usage: compare.py PATH/TO/preflight [RUNS]       (default 5)
Needs node and `npm ci --prefix bench/hub_compare`.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
COMMIT = "0123456789abcdef0123456789abcdef01234567"
MODELS = [("deepseek-v3", "deepseek-ai/DeepSeek-V3", 163), ("kimi-k3", "moonshotai/Kimi-K3", 96)]


def timed(cmd, env=None):
    """Wall seconds of one child process (it must succeed)."""
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr.strip()}")
    return wall


def peak_of(cmd, env=None):
    """Peak RSS in KiB of one run, from GNU time (getrusage keeps the maximum over all children)."""
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True, env=env)
    return int(out.stderr.strip().splitlines()[-1]) if out.returncode == 0 else 0


def main():
    binary = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    node_script = os.path.join(HERE, "parse.mjs")
    if not os.path.isdir(os.path.join(HERE, "node_modules", "@huggingface", "hub")):
        raise SystemExit("run `npm ci --prefix bench/hub_compare` first")
    tmp = tempfile.mkdtemp(prefix="preflight-hub-compare-")
    for name, repo, shards in MODELS:
        tensors = os.path.join(tmp, f"{name}.json")
        with open(tensors, "w") as f:
            f.write(subprocess.run([binary, "inspect", name, "--tensors", "--format", "json"], capture_output=True, text=True,
                                   check=True).stdout)
        config = os.path.join(ROOT, "data", "models", name, "config.json")
        hub = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests", "hub", "fake_hub.py"), "--repo", repo, "--config",
                                config, "--tensors", tensors, "--shards", str(shards)], stdout=subprocess.PIPE, text=True)
        port = int(hub.stdout.readline().split()[-1])
        url = f"http://127.0.0.1:{port}"
        try:
            js_cmd = ["node", node_script, url, repo, COMMIT]
            js = min(timed(js_cmd) for _ in range(runs))
            js_peak = peak_of(js_cmd)
            env = dict(os.environ, HF_ENDPOINT=url, XDG_CACHE_HOME=tmp)
            for mode in ("all", "lengths"):
                cmd = [binary, "inspect", f"{repo}@{COMMIT}", "--no-cache", "--format", "json", "--shard-headers", mode]
                pf = min(timed(cmd, env) for _ in range(runs))
                pf_peak = peak_of(cmd, env)
                print(f"{name:<12} {shards:>3} shards  --shard-headers {mode:<7}  preflight {pf:6.3f} s ({pf_peak / 1024:5.0f} MiB peak)"
                      f"  @huggingface/hub {js:6.3f} s ({js_peak / 1024:5.0f} MiB peak)  ratio {js / pf:4.1f}x  (best of {runs})")
        finally:
            hub.terminate()
            hub.wait()
            hub.stdout.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
