#!/usr/bin/env python3
"""Config-alone sizing of any preflight binary over the gathered corpora.

For every (config.json, model.safetensors.index.json) pair in tests/data/arch_corpus and
tests/data/index_corpus, runs `BINARY inspect CONFIG --tensors` and compares the generated
tensors with the index: bytes within 0.3% of metadata.total_size, and the exact name set.
Prints the totals and one row per model type. Used to measure a change against an older
binary (the ArchCorpus unit test does the same in-process for the current tree).

Usage: tools/corpus_sizes.py BINARY [REPO_ROOT] [--dir FOLDER]... [--misses]
  --dir FOLDER  measure the pairs under FOLDER (one pair a subfolder) instead of the corpora
  --misses      also print each pair that misses, with its byte difference
"""
import glob
import json
import os
import subprocess
import sys


def pair_folders(root, dirs):
    if dirs:
        for base in dirs:
            yield from sorted(glob.glob(os.path.join(base, "**/"), recursive=True))
        return
    for corpus in ("arch_corpus", "index_corpus"):
        yield from sorted(glob.glob(os.path.join(root, "tests/data", corpus, "*/")))


def main():
    args = sys.argv[1:]
    misses = "--misses" in args
    args = [a for a in args if a != "--misses"]
    dirs = [args[i + 1] for i, a in enumerate(args) if a == "--dir"]
    args = [a for i, a in enumerate(args) if a != "--dir" and (i == 0 or args[i - 1] != "--dir")]
    binary = args[0]
    root = args[1] if len(args) > 1 else os.path.join(os.path.dirname(__file__), "..")
    rows, total = {}, [0, 0, 0]
    for folder in pair_folders(root, dirs):
        config_path = os.path.join(folder, "config.json")
        if not os.path.exists(config_path) or not os.path.exists(os.path.join(folder, "model.safetensors.index.json")):
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
            if misses:
                print(f"MISS {folder}: {model_type}: {run.stderr.strip()[:160]}")
            continue
        names, size = set(), 0
        for line in run.stdout.splitlines():  # "name  DTYPE  [shape]  bytes B"
            parts = line.split()
            if len(parts) >= 4 and parts[-1] == "B" and "." in parts[0] and not parts[0][0].isdigit():
                names.add(parts[0])
                size += int(parts[-2].replace(",", ""))
        within = real > 0 and abs(size - real) <= 0.003 * real
        exact = names == set(index["weight_map"])
        if misses and not (within and exact):
            wanted = set(index["weight_map"])
            delta = (size - real) / real * 100 if real else 0
            print(f"MISS {folder}: {model_type}: {delta:+.2f}% bytes, {len(names - wanted)} extra names"
                  f" {sorted(names - wanted)[:2]}, {len(wanted - names)} missing {sorted(wanted - names)[:2]}")
        for r in (row, total):
            r[1] += within
            r[2] += exact
    print(f"{total[0]} pairs over {len(rows)} model types: {total[1]} within 0.3%, {total[2]} exact names")
    print("| model type | pairs | within 0.3% | exact names |\n|---|---:|---:|---:|")
    for model_type, (n, w, e) in sorted(rows.items()):
        print(f"| {model_type} | {n} | {w} | {e} |")


if __name__ == "__main__":
    main()
