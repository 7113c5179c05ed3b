#!/usr/bin/env python3
"""Config-only bytes against the index's total_size, for every model folder of
tests/validation/models that holds both (config.json and index-metadata.json, each
from a public copy named in its notes.md). preflight sizes the checkpoint from the
config alone (`inspect CONFIG --format json`, bytes_by_dtype) and must land within
0.3% of the total the index states, which it never reads here.

Usage: config_pairs_test.py PATH/TO/preflight
"""
import json
import os
import subprocess
import sys

LIMIT_PCT = 0.3


def main() -> int:
    binary = sys.argv[1]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
    pairs, failures = 0, []
    for name in sorted(os.listdir(root)):
        folder = os.path.join(root, name)
        config, meta = os.path.join(folder, "config.json"), os.path.join(folder, "index-metadata.json")
        if not (os.path.isfile(config) and os.path.isfile(meta)):
            continue
        with open(meta, encoding="utf-8") as f:
            total = json.load(f)["metadata"]["total_size"]
        out = subprocess.run([binary, "inspect", config, "--format", "json"], capture_output=True, text=True)
        pairs += 1
        if out.returncode != 0:
            failures.append("%s: preflight refused the config: %s" % (name, out.stderr.strip()))
            continue
        got = sum(json.loads(out.stdout)["bytes_by_dtype"].values())
        err = (got - total) / total * 100.0
        print("%-45s index %16d  config-only %16d  %+.3f%%" % (name, total, got, err))
        if abs(err) > LIMIT_PCT:
            failures.append("%s: config-only %d B vs index %d B (%+.3f%%)" % (name, got, total, err))
    if pairs == 0:
        failures.append("no config + index-metadata pair under %s" % root)
    for f in failures:
        print("FAIL: " + f)
    print("%d pair(s), %d outside %.1f%%" % (pairs, len(failures), LIMIT_PCT))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
