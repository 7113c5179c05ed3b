#!/usr/bin/env python3
"""Whole-process figures (issue 18): best of N runs of `--help`, a catalogue plan and
a JSON plan, the shared libraries the binary resolves before main, and best of 5 of
the full sweep (every family, 1..256 GPUs, 128K context, CSV).
Prints figures for people; never a gate (timings depend on the machine).

Usage: bench/bench_startup.py [BINARY] [RUNS]   (default build/preflight, 21)
"""
import subprocess
import sys
import time


def best_ms(cmd, runs):
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t)
    return best * 1000


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "build/preflight"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 21
    ldd = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout.strip().splitlines()
    print("shared objects resolved at start (ldd lines): %d" % len(ldd))
    cases = [
        ("--help", [binary, "--help"]),
        ("plan kimi-k3 --gpus 8xB300 --context 1M", [binary, "plan", "kimi-k3", "--gpus", "8xB300", "--context", "1M"]),
        ("the same, --format json", [binary, "plan", "kimi-k3", "--gpus", "8xB300", "--context", "1M", "--format", "json"]),
        ("/bin/true (process floor)", ["/bin/true"]),
    ]
    for name, cmd in cases:
        print("%-45s best of %d: %7.2f ms" % (name, runs, best_ms(cmd, runs)))
    sweep = [binary, "sweep", "--counts", "1..256", "--context", "128K", "--format", "csv"]
    print("%-45s best of 5: %7.2f ms" % ("sweep --counts 1..256 --context 128K (csv)", best_ms(sweep, 5)))


if __name__ == "__main__":
    main()
