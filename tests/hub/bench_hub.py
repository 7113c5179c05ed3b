#!/usr/bin/env python3
"""Benchmark: a 163-shard model (DeepSeek-V3's count) from the loopback fake hub,
at a given concurrency, reading every shard header (--shard-headers all) and the
index with each header's length (lengths, what auto picks for DeepSeek-V3):
wall time, bytes transferred by kind, and requests.

Usage: bench_hub.py PATH/TO/preflight [CONCURRENCY ...]   (default 1 4 16)
Figures for people; nothing is asserted. The fake hub is Python: at high
concurrency on few cores it, not preflight, is the bottleneck.
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


def main():
    binary = os.path.abspath(sys.argv[1])
    levels = [int(x) for x in sys.argv[2:]] or [1, 4, 16]
    tmp = tempfile.mkdtemp(prefix="preflight-hub-bench-")
    tensors = os.path.join(tmp, "tensors.json")
    with open(tensors, "w") as f:
        f.write(subprocess.run([binary, "inspect", "deepseek-v3", "--tensors", "--format", "json"], capture_output=True,
                               text=True, check=True).stdout)
    hub = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_hub.py"), "--repo", "deepseek-ai/DeepSeek-V3",
                            "--config", os.path.join(ROOT, "data", "models", "deepseek-v3", "config.json"),
                            "--tensors", tensors, "--shards", "163"], stdout=subprocess.PIPE, text=True)
    port = int(hub.stdout.readline().split()[-1])
    try:
        for mode in ("all", "lengths"):
            for c in levels:
                env = dict(os.environ, HF_ENDPOINT=f"http://127.0.0.1:{port}", PREFLIGHT_HUB_CONCURRENCY=str(c),
                           XDG_CACHE_HOME=tmp)
                start = time.perf_counter()
                out = subprocess.run([binary, "inspect", f"deepseek-ai/DeepSeek-V3@{COMMIT}", "--no-cache", "--format",
                                      "json", "--shard-headers", mode], capture_output=True, text=True, env=env,
                                     check=True).stdout
                wall = time.perf_counter() - start
                doc = json.loads(out)
                f = doc["hub_fetch"]
                total = f["listing_bytes"] + f["config_bytes"] + f["index_bytes"] + f["shard_bytes"]
                print(f"163 shards, --shard-headers {mode:<7} concurrency {c:>2}: {wall:.2f} s wall, {total:,} B in "
                      f"{f['requests']} requests (shards {f['shard_bytes']:,} B, index {f['index_bytes']:,} B; "
                      f"reconciliation {doc['reconciliation']['method']}, exact: {doc['reconciliation']['exact']})")
    finally:
        hub.terminate()
        hub.wait()
        hub.stdout.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
