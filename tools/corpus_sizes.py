#!/usr/bin/env python3
"""Config-alone sizing of any preflight binary over the gathered corpora.

For every (config.json, model.safetensors.index.json) pair in tests/data/arch_corpus and
tests/data/index_corpus, runs `BINARY inspect CONFIG --tensors` and compares the generated
tensors with the index: bytes within 0.3% of metadata.total_size, and the exact name set.
Prints the totals and one row per model type. Used to measure a change against an older
binary (the ArchCorpus unit test does the same in-process for the current tree).

Usage: tools/corpus_sizes.py BINARY [REPO_ROOT]
"""
import glob
import json
import os
import subprocess
import sys


def main():
    binary = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..")
    rows, total = {}, [0, 0, 0]
    for corpus in ("arch_corpus", "index_corpus"):
        for folder in sorted(glob.glob(os.path.join(root, "tests/data", corpus, "*/"))):
            config_path = os.path.join(folder, "config.json")
            if not os.path.exists(config_path):
                continue
            config = json.load(open(config_path))
            model_type = config.get("model_type") or (config.get("text_config") or {}).get("model_type") or ""
            index = json.load(open(os.path.join(folder, "model.safetensors.index.json")))
            real = int(index.get("metadata", {}).get("total_size", 0) or 0)
            row = rows.setdefault(model_type, [0, 0, 0])
            row[0] += 1
            total[0] += 1
            run = subprocess.run([binary, "inspect", config_path, "--tensors"], capture_output=True, text=True)
            if run.returncode != 0:
                continue
            names, size = set(), 0
            for line in run.stdout.splitlines():  # "name  DTYPE  [shape]  bytes B"
                parts = line.split()
                if len(parts) >= 4 and parts[-1] == "B" and "." in parts[0] and not parts[0][0].isdigit():
                    names.add(parts[0])
                    size += int(parts[-2].replace(",", ""))
            within = real > 0 and abs(size - real) <= 0.003 * real
            exact = names == set(index["weight_map"])
            for r in (row, total):
                r[1] += within
                r[2] += exact
    print(f"{total[0]} pairs over {len(rows)} model types: {total[1]} within 0.3%, {total[2]} exact names")
    print("| model type | pairs | within 0.3% | exact names |\n|---|---:|---:|---:|")
    for model_type, (n, w, e) in sorted(rows.items()):
        print(f"| {model_type} | {n} | {w} | {e} |")


if __name__ == "__main__":
    main()
