#!/usr/bin/env python3
"""Stand-in for the preflight binary in tools/validate_engines_test.py.

`gpus --format json` and `models --format json` print the catalogue snapshots beside
this file (gpus.json, models.json: id/aliases/nominal_gb and name/hub_id/aliases as the
real binary lists them). `plan MODEL --gpus NxID ... --format json` prints a plan with
engine.* figures from a toy formula, so that the harness's mapping, comparison,
summary and gate can be tested end to end without the real engine sizing:

  weights_bytes_per_rank = 10 GiB / (tp x pp)  (a list, one per rank, when pp > 1)
  kv_cache_tokens        = 100,000 x tp x pp
  max_concurrency        = kv_cache_tokens / context   (context default 8192)
  max_running_requests   = 2048 (SGLang only)

Exit 2 with a one-line message for --engine-version 9.9.9 (an "input error"); exit 1
(does not fit, JSON still printed) for --gpu-memory-utilization below 0.5; no engine
section at all when FAKE_PREFLIGHT_NO_ENGINE=1. Every plan call's argv is appended to
$FAKE_PREFLIGHT_LOG when set.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GIB = 1 << 30


def option(args, name, default=None):
    if name in args:
        i = args.index(name)
        if i + 1 < len(args):
            return args[i + 1]
    return default


def main(argv):
    if len(argv) >= 1 and argv[0] in ("gpus", "models"):
        with open(os.path.join(HERE, argv[0] + ".json"), encoding="utf-8") as f:
            sys.stdout.write(f.read())
        return 0
    if not argv or argv[0] != "plan":
        print("fake preflight: unsupported command %r" % argv[:1], file=sys.stderr)
        return 2
    log = os.environ.get("FAKE_PREFLIGHT_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps(argv) + "\n")
    if option(argv, "--engine-version") == "9.9.9":
        print("preflight: --engine-version: no vllm rules for 9.9.9", file=sys.stderr)
        return 2
    count, _, gpu = option(argv, "--gpus", "1xh100").partition("x")
    tp = int(option(argv, "--tp", "1"))
    pp = int(option(argv, "--pp", "1"))
    context = int(option(argv, "--context", "8192"))
    util = float(option(argv, "--gpu-memory-utilization", "0.9"))
    fits = util >= 0.5
    doc = {
        "model": {"name": argv[1]},
        "cluster": {"gpu": gpu, "count": int(count)},
        "layout": {"tp": tp, "pp": pp, "dp": int(option(argv, "--dp", "1")), "ep": 1, "dcp": 1},
        "verdict": {"fits": fits, "first_boundary": "none" if fits else "kv_cache", "headroom_bytes": 0},
    }
    if os.environ.get("FAKE_PREFLIGHT_NO_ENGINE") != "1":
        weights = 10 * GIB // (tp * pp)
        kv = 100000 * tp * pp
        engine = {
            "name": option(argv, "--engine"),
            "weights_bytes_per_rank": [weights] * (tp * pp) if pp > 1 else weights,
            "kv_cache_tokens": kv,
            "max_concurrency": kv / context,
        }
        if option(argv, "--engine") == "sglang":
            engine["max_running_requests"] = 2048
        doc["engine"] = engine
    print(json.dumps(doc, indent=2))
    return 0 if fits else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
