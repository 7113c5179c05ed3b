#!/usr/bin/env python3
"""Check SGLang's memory-in-use-before-loading rule against gathered start-up logs.

SGLang sizes its pools from the free memory it sees after init_torch_distributed
("Load weight begin. avail mem=X GB", X in GiB). preflight models what is in use by
then as the CUDA context plus a distributed set-up per TP rank (data/engines.json,
NVLS switch domains from data/gpus.json). For every row of
tests/validation/gathered/sglang-preload.csv this script runs the real binary
(`plan qwen3-0.6b --engine sglang` on the row's GPUs and TP), reads the worker's
`non_torch_bytes` (in use before loading), and compares it with the logged
device total - free at load begin.

It prints one line per row and the mean absolute error in GiB; `--max-mae` makes it a
gate (exit 1). Python 3 standard library only. Exit 2: bad usage or input.
"""
from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

GIB = float(1 << 30)
REPO = Path(__file__).resolve().parent.parent
DEFAULT_CSV = REPO / "tests" / "validation" / "gathered" / "sglang-preload.csv"
DEFAULT_BINARY = REPO / "build" / "preflight"


def run_json(binary: Path, args: list) -> object:
    out = subprocess.run([str(binary)] + args, capture_output=True, text=True, timeout=60)
    if out.returncode not in (0, 1):  # 1: a plan that does not fit still prints its figures
        raise RuntimeError("%s %s: exit %d: %s" % (binary, " ".join(args), out.returncode, out.stderr.strip()))
    return json.loads(out.stdout)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--csv", type=Path, default=DEFAULT_CSV)
    ap.add_argument("--binary", type=Path, default=DEFAULT_BINARY)
    ap.add_argument("--max-mae", type=float, default=None, help="gate: mean absolute error in GiB at most this")
    a = ap.parse_args(argv)
    try:
        rows = list(csv.DictReader(a.csv.open()))
        totals = {g["id"]: g["device_total_bytes"] for g in run_json(a.binary, ["gpus", "--format", "json"])}
    except (OSError, ValueError, RuntimeError) as e:
        print("check_sglang_preload: %s" % e, file=sys.stderr)
        return 2
    if not rows:
        print("check_sglang_preload: %s has no rows" % a.csv, file=sys.stderr)
        return 2
    errors = []
    print("%-60s %-30s %3s %8s %8s %7s" % ("source", "gpu", "tp", "logged", "model", "error"))
    for r in rows:
        gpu, tp, count = r["gpu_id"], int(r["tp"]), int(r["gpu_count"])
        if gpu not in totals:
            print("check_sglang_preload: %s: gpu_id %r is not in the catalogue" % (a.csv, gpu), file=sys.stderr)
            return 2
        logged = totals[gpu] / GIB - float(r["begin_avail_gib"])
        # TP over `tp` GPUs; the other GPUs of the row (PP, DP replicas) do not change one worker's snapshot.
        plan = run_json(a.binary, ["plan", "qwen3-0.6b", "--gpus", "%dx%s" % (tp, gpu), "--tp", str(tp),
                                   "--engine", "sglang", "--format", "json"])
        model = plan["engine"]["workers"][0]["non_torch_bytes"] / GIB
        errors.append(model - logged)
        print("%-60s %-30s %3d %8.2f %8.2f %+7.2f" % (r["source_url"][-60:], gpu, tp, logged, model, model - logged))
    mae = sum(abs(e) for e in errors) / len(errors)
    print("\nmemory in use before loading: mean absolute error %.2f GiB over %d rows (mean signed %+.2f GiB)"
          % (mae, len(errors), sum(errors) / len(errors)))
    if a.max_mae is not None and mae > a.max_mae:
        print("gate failed: MAE %.2f GiB > %.2f GiB" % (mae, a.max_mae), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
