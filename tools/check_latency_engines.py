#!/usr/bin/env python3
"""Check the latency estimate against public vLLM and SGLang benchmarks it was
never fitted on (tests/validation/latency/engines-2026-12.csv).

Each row is one benchmark run (bench_serving / benchmark_serving / vllm bench
serve). The row is planned as the run was served:
    preflight plan MODEL --gpus NxGPU --tp TP --engine vllm|sglang
        [--engine-version V] --input-tokens I --output-tokens O --context I+O
        (--concurrency C | --rate R | --rate inf) --requests N --format json
with I and O the run's mean prompt and output (its total tokens over its
requests where the source gives them, else the stated lengths); where the
run's lengths vary (bench_serving's random range ratio 0), --mix-file gives
the simulation each request's drawn lengths in place of --context. A row is
skipped, with the reason, when its model or GPU has no catalogue entry, its
lengths are unknown (ShareGPT without totals) or the plan has no estimate.

Reported per engine x GPU: median absolute error of mean (else median) TTFT,
TPOT and output tokens/s; how many measurements lie inside the estimate's
band; how many TPOT bounds lie at or below the measurement. Rows with a
closed-loop concurrency ("the concurrency is controlled") are reported apart
from rows at a request rate.

Every fourth row (in file order) is held out. `--write` fits two figures on
the other three quarters of the rows from current releases (SGLang >= 0.5,
vLLM >= 0.10; older runs and runs naming no version are reported apart):
each engine's front-end delay (`engines.ENGINE.per_request_s`: the median of
single-client TTFT less the simulated TTFT without it), then the bandwidth share at which a step reads the
expert weights a wider batch touches beyond one token's (`moe_memory`,
perf/step_time_model.h; dense models do not depend on it): per GPU with at
least six MoE rows, else over all of them, by a grid search of the binary's own
simulation minimising the median absolute error of TPOT and output tokens/s;
it is written into data/latency_efficiency.json (tools/fit_latency.py keeps it),
with, for a GPU of six or more such rows, the band their errors call for where
wider than its own.
The report gives the fitted and held-out rows apart.

Rows whose TPOT column holds a median inter-token latency (the notes say so)
are not compared on TPOT: with chunked prefill the median ITL excludes the
stalls that TPOT averages in.

Usage:
    python3 tools/check_latency_engines.py [--binary build/preflight] [--json OUT]
        [--write] [--max-tpot-mdape PCT]
"""
import argparse
import csv
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CSV = ROOT / "tests/validation/latency/engines-2026-12.csv"
DATA = ROOT / "data/latency_efficiency.json"
MOE_GRID = [1.0, 0.8, 0.65, 0.55, 0.45, 0.38, 0.32, 0.27, 0.23, 0.2, 0.17, 0.14, 0.12, 0.1]
MODELS_DIR = ROOT / "tests/validation/models"

# Catalogue entries (or config folders) with the same shapes and checkpoint format.
MODELS = {
    "deepseek-ai/DeepSeek-R1": "deepseek-v3",
    "deepseek-ai/DeepSeek-R1-0528": "deepseek-v3",
    "deepseek-ai/DeepSeek-V3.1": "deepseek-v3",
    "Qwen/Qwen3-235B-A22B-Instruct-2507": "qwen3-235b-a22b-2507",
    "meta-llama/Llama-3.1-70B": "llama-3.1-70b",
    "meta-llama/Llama-3.1-70B-Instruct": "llama-3.1-70b",
    "meta-llama/Llama-3.3-70B-Instruct": "llama-3.1-70b",
    "meta-llama/Llama-3.1-8B-Instruct": "llama-3.1-8b-instruct",
    "Qwen/Qwen3-32B": str(MODELS_DIR / "Qwen__Qwen3-32B"),
    "Qwen/Qwen3-30B-A3B": str(MODELS_DIR / "Qwen__Qwen3-30B-A3B"),
}
GPUS = {
    "H200": "nvidia-h200-sxm-141gb",
    "H200 SXM5 (141GB)": "nvidia-h200-sxm-141gb",
    "NVIDIA H200 SXM5 141GB": "nvidia-h200-sxm-141gb",
    "B200": "nvidia-b200-hgx",
    "NVIDIA B200": "nvidia-b200-hgx",
    "MI300X (192GB)": "amd-mi300x",
    "AMD MI300X": "amd-mi300x",
    "AMD MI300X 192GB": "amd-mi300x",
    "AMD Instinct MI300X": "amd-mi300x",
    "A100 80G": "nvidia-a100-80gb-sxm",
    "NVIDIA A100 GPU": "nvidia-a100-80gb-sxm",
    "H100 80G": "nvidia-h100-sxm-80gb",
    "H100": "nvidia-h100-sxm-80gb",
    "H100 NVL (95GB)": "nvidia-h100-nvl-94gb",
}
TOTALS = re.compile(r"total input/(?:output|generated) tokens (\d+)/(\d+)")
COMPLETED = re.compile(r"completed(?: requests)?[= ](\d+)(?:/| of )(\d+)")


def num(x):
    try:
        v = float(x)
        return v if v == v else None
    except (TypeError, ValueError):
        return None


def lengths(row):
    """Mean prompt and output tokens of the run, and where they came from."""
    m = TOTALS.search(row["notes"])
    done = COMPLETED.search(row["notes"])
    n = int(done.group(1)) if done else int(num(row["num_prompts"]) or 0)
    if m and n > 0:
        return round(int(m.group(1)) / n), max(1, round(int(m.group(2)) / n)), "totals"
    if num(row["isl"]) and num(row["osl"]):
        return round(num(row["isl"])), round(num(row["osl"])), "stated"
    return None, None, "no lengths (ShareGPT or open output without totals)"


# The releases the fit takes rows from: the engines as deployed today (SGLang
# 0.5 from 2025-08, vLLM 0.10 from 2025-07). Older runs (early DeepSeek-R1
# kernels of 2025-02 run 2.5-4x slower than today's) and runs that name no
# version are reported, never fitted.
CURRENT_FROM = {"sglang": (0, 5), "vllm": (0, 10)}


def current_release(row):
    v = version(row)
    if not v:
        return False
    major, minor = (int(x) for x in v.split(".")[:2])
    engine = "sglang" if row["engine"].lower().startswith("sglang") else "vllm"
    return (major, minor) >= CURRENT_FROM[engine]


def version(row):
    m = re.match(r"v?(\d+)\.(\d+)(?:\.(\d+))?", row["engine_version"] or "")
    return "%s.%s.%s" % (m.group(1), m.group(2), m.group(3) or "0") if m else None


def spread_lengths(row):
    """Per-request (input, output) pairs when the run's lengths vary: SGLang's
    bench_serving random dataset with --random-range-ratio 0 (its default)
    draws each uniformly from 1 to the stated length. A closed loop of equal
    requests runs in lockstep rounds, one of unequal requests does not, so the
    simulation is given the spread. None: fixed lengths."""
    scenario = row["scenario"].lower()
    if not ("range-ratio 0" in scenario or "not set (tool default" in scenario):
        return None
    if not (num(row["isl"]) and num(row["osl"])):
        return None
    rng = random.Random(row["id"])
    n = int(num(row["num_prompts"]) or 1000)
    return [(rng.randint(1, int(num(row["isl"]))), rng.randint(1, int(num(row["osl"])))) for _ in range(n)]


def command(binary, row, isl, osl, with_version=True, efficiency=None, trace=None):
    engine = "sglang" if row["engine"].lower().startswith("sglang") else "vllm"
    tp = int(num(row["tp"]) or num(row["gpu_count"]) or 1)
    count = int(num(row["gpu_count"]) or tp)
    cmd = [binary, "plan", MODELS[row["model"]], "--gpus", "%dx%s" % (count, GPUS[row["gpu"]]), "--tp", str(tp),
           "--pp", "1", "--dp", str(max(1, count // tp)), "--engine", engine, "--input-tokens", str(isl),
           "--output-tokens", str(osl), "--format", "json"]
    cmd += ["--mix-file", trace] if trace else ["--context", str(isl + osl)]
    requests = int(num(row["num_prompts"]) or 0)
    if num(row["concurrency"]):
        cmd += ["--concurrency", str(int(num(row["concurrency"])))]
    elif row["request_rate"].strip().lower() == "inf":
        cmd += ["--rate", "inf"]
    elif num(row["request_rate"]):
        cmd += ["--rate", row["request_rate"], "--tpot", "10s"]  # --rate needs a TPOT for Little's law; 10 s never binds
    else:
        return None
    if requests:
        cmd += ["--requests", str(requests)]
    v = version(row)
    if with_version and v:
        cmd += ["--engine-version", v]
    if efficiency:
        cmd += ["--latency-efficiency", str(efficiency)]
    return cmd


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        return None, p.stderr.strip()
    try:
        return json.loads(p.stdout), ""
    except json.JSONDecodeError:
        return None, "no JSON"


def plan_row(binary, row, efficiency=None):
    if row["model"] not in MODELS:
        return None, "model has no catalogue entry or config"
    if row["gpu"] not in GPUS:
        return None, "GPU not in the catalogue"
    isl, osl, how = lengths(row)
    if isl is None:
        return None, how
    spread = spread_lengths(row)
    trace = None
    if spread:
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as fh:
            fh.write("input,output\n" + "".join("%d,%d\n" % p for p in spread))
        trace = fh.name
    try:
        cmd = command(binary, row, isl, osl, efficiency=efficiency, trace=trace)
        if cmd is None:
            return None, "no concurrency or rate"
        plan, err = run(cmd)
        if plan is None and "--engine-version" in cmd:  # a version outside the modelled range: plan the default
            plan, err = run(command(binary, row, isl, osl, with_version=False, efficiency=efficiency, trace=trace))
    finally:
        if trace:
            os.unlink(trace)
    if plan is None:
        return None, err
    latency = plan.get("latency") or {}
    if not latency.get("estimate"):
        return None, "no estimate"
    return {"plan": plan, "isl": isl, "osl": osl, "lengths": how}, ""


def measured(row, what):
    mean, median = num(row[what + "_ms_mean"]), num(row[what + "_ms_median"])
    return (mean / 1e3, "mean") if mean else ((median / 1e3, "median") if median else (None, None))


def records(binary, rows, efficiency=None):
    """Each planned row's measured and estimated figures; the skipped rows by reason."""
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda r: plan_row(binary, r, efficiency), rows))
    out, skipped = [], {}
    for row, (res, why) in zip(rows, results):
        if res is None:
            skipped.setdefault(why, []).append(row["id"])
            continue
        e = res["plan"]["latency"]["estimate"]
        bound = res["plan"]["latency"]["bound"]
        step = e["step_model"]
        rec = {"id": row["id"], "engine": row["engine"], "gpu": GPUS[row["gpu"]], "model": row["model"],
               "controlled": bool(num(row["concurrency"])), "isl": res["isl"], "osl": res["osl"], "band": e["band"],
               "moe": step["weights_s_64"] > step["weights_s_1"] * 1.01, "held_out": row["_index"] % 4 == 3,
               "current": current_release(row), "concurrency": int(num(row["concurrency"]) or 0)}
        itl = "holds MEDIAN ITL" in row["notes"]
        for what, key in (("ttft", "ttft_s"), ("tpot", "tpot_s")):
            value, stat = measured(row, what)
            if value and not (what == "tpot" and itl):
                predicted = e[key]["mean"] if stat == "mean" else e[key]["p50"]
                rec[what] = {"measured": value, "estimate": predicted, "error": predicted / value - 1, "stat": stat}
                if what == "tpot":
                    rec[what]["bound"] = bound["tpot_s"]
        if num(row["output_tok_s_total"]):
            m = num(row["output_tok_s_total"])
            rec["tps"] = {"measured": m, "estimate": e["output_tokens_per_s"], "error": e["output_tokens_per_s"] / m - 1}
        out.append(rec)
    return out, skipped


def median_abs(xs):
    return statistics.median(abs(x) for x in xs) if xs else None


def write_table(table):
    with open(DATA, "w") as fh:
        json.dump(table, fh, indent=1)
        fh.write("\n")


def with_table(binary, rows, table):
    """records() planned with `table` as --latency-efficiency."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(table, fh)
    try:
        return records(binary, rows, fh.name)[0]
    finally:
        os.unlink(fh.name)


def fit_front_ends(binary, rows, base):
    """Each engine's delay from arrival to its scheduler's queue: one client's
    TTFT less the simulated one without a delay, median over the fit rows."""
    table = json.loads(json.dumps(base))
    table.pop("engines", None)
    recs = [r for r in with_table(binary, rows, table)
            if r["current"] and not r["held_out"] and r["controlled"] and r["concurrency"] == 1 and "ttft" in r]
    engines = {}
    for name in sorted({r["engine"] for r in recs}):
        gaps = [r["ttft"]["measured"] - r["ttft"]["estimate"] for r in recs if r["engine"] == name]
        delay = max(0.0, statistics.median(gaps))
        engines[name.lower()] = {
            "per_request_s": round(delay, 6), "rows": len(gaps),
            "source": "tools/check_latency_engines.py --write: median of single-client TTFT less the simulated TTFT "
                      "without a front end, over %d fit rows of current releases in "
                      "tests/validation/latency/engines-2026-12.csv (public runs)" % len(gaps)}
        print("front end %-8s %.1f ms per request on %d single-client rows" % (name, delay * 1e3, len(gaps)))
    return engines


def fit_moe(binary, rows, base):
    """moe_memory per GPU (six or more MoE fit rows) and for the default, by grid search."""
    moe_rows = None
    scores = {}  # value -> records
    for v in MOE_GRID:
        table = json.loads(json.dumps(base))
        table["default"]["moe_memory"] = v
        for entry in table["gpus"].values():
            entry["moe_memory"] = v
        recs = with_table(binary, moe_rows if moe_rows is not None else rows, table)
        recs = [r for r in recs if r["moe"] and not r["held_out"] and r["current"]]
        if moe_rows is None:
            ids = {r["id"] for r in recs}
            moe_rows = [row for row in rows if row["id"] in ids]
        scores[v] = recs

    def error(recs):
        xs = [r[k]["error"] for r in recs for k in ("tpot", "tps") if k in r]
        return median_abs(xs) if xs else float("inf")

    best = {}
    gpus = sorted({r["gpu"] for recs in scores.values() for r in recs})
    for gpu in gpus:
        n = len([r for r in scores[MOE_GRID[0]] if r["gpu"] == gpu])
        if n >= 6:
            best[gpu] = min(MOE_GRID, key=lambda v: error([r for r in scores[v] if r["gpu"] == gpu]))
            print("moe_memory %-22s %.2f on %d fit rows (MdAPE %.1f%% at 1.0, %.1f%% at %.2f)" % (
                gpu, best[gpu], n, error([r for r in scores[1.0] if r["gpu"] == gpu]) * 100,
                error([r for r in scores[best[gpu]] if r["gpu"] == gpu]) * 100, best[gpu]))
    overall = min(MOE_GRID, key=lambda v: error(scores[v]))
    print("moe_memory %-22s %.2f on %d fit rows" % ("default", overall, len(scores[MOE_GRID[0]])))
    source = ("tools/check_latency_engines.py --write: grid search on three quarters of the MoE rows of "
              "tests/validation/latency/engines-2026-12.csv from current releases (SGLang >= 0.5, vLLM >= 0.10; "
              "public runs; every fourth row held out)")
    base["default"]["moe_memory"] = overall
    base["default"]["moe_source"] = source
    for gpu in best:  # a GPU without static or NIM rows: the default's terms, its own moe_memory
        base["gpus"].setdefault(gpu, engine_only_entry(base))
    for key, entry in base["gpus"].items():
        entry["moe_memory"] = best.get(key, overall)
        entry["moe_source"] = source + ("" if key in best else "; this GPU has too few: the default's")
    return base


def engine_only_entry(base):
    entry = json.loads(json.dumps(base["default"]))
    entry["source"] = "the default's kernel and serving terms (no static or NIM rows for this GPU); " + entry["source"]
    return entry


def widen_bands(binary, rows, base):
    """A GPU with six or more fit rows of current releases gets the band their
    errors call for (the 80th percentile of TPOT and output tokens/s errors)
    where that is wider than the band its own fit gave it."""
    recs = [r for r in with_table(binary, rows, base) if r["current"] and not r["held_out"]]
    for gpu in sorted({r["gpu"] for r in recs}):
        errs = sorted(abs(r[k]["error"]) for r in recs if r["gpu"] == gpu for k in ("tpot", "tps") if k in r)
        n = len([r for r in recs if r["gpu"] == gpu])
        if n < 6 or not errs:
            continue
        p80 = errs[min(len(errs) - 1, int(0.8 * len(errs)))]
        entry = base["gpus"].setdefault(gpu, engine_only_entry(base))
        if p80 > entry["band"]:
            print("band %-22s +-%.0f%% -> +-%.0f%% (%d fit rows of vLLM/SGLang runs)" % (gpu, entry["band"] * 100, p80 * 100, n))
            entry["band"] = round(p80, 3)
            entry["band_source"] = ("tools/check_latency_engines.py --write: 80th percentile of the TPOT and output "
                                    "tokens/s errors of %d fit rows of current vLLM/SGLang releases, wider than the "
                                    "fit's own" % n)
    return base


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=str(ROOT / "build/preflight"))
    ap.add_argument("--json", help="write every row's figures here")
    ap.add_argument("--write", action="store_true", help="fit the front ends and moe_memory on the fit rows into data/latency_efficiency.json "
                    "(rebuild the binary afterwards: the table is embedded)")
    ap.add_argument("--max-tpot-mdape", type=float, help="gate: fail when the held-out closed-loop TPOT MdAPE (%%) is above")
    args = ap.parse_args()
    rows = list(csv.DictReader(open(CSV)))
    for i, row in enumerate(rows):
        row["_index"] = i
    if args.write:
        base = json.load(open(DATA))
        base["engines"] = fit_front_ends(args.binary, rows, base)
        base = fit_moe(args.binary, rows, base)
        write_table(widen_bands(args.binary, rows, base))
        print("written: %s (rebuild, then run without --write for the report)" % DATA.relative_to(ROOT))
        return 0
    out, skipped = records(args.binary, rows, DATA)

    def mdape(xs):
        return "%.1f%%" % (median_abs(xs) * 100) if xs else "-"

    print("== Latency estimate against public vLLM and SGLang runs: %d of %d rows planned; every fourth held out "
          "(the front ends and moe_memory fitted on current releases' other rows, nothing else)" % (len(out), len(rows)))
    worst_controlled_tpot = 0.0
    sections = [("rows of current releases moe_memory was fitted on (3 of 4)", lambda r: r["current"] and not r["held_out"]),
                ("held-out rows of current releases", lambda r: r["current"] and r["held_out"]),
                ("rows of older releases or no stated version (never fitted)", lambda r: not r["current"])]
    for title, chosen in sections:
        held = title.startswith("held-out")
        for controlled in (True, False):
            part = [r for r in out if chosen(r) and r["controlled"] == controlled]
            if not part:
                continue
            print("\n%s, %s" % (title, "closed loop (the concurrency is controlled)" if controlled else "at a request rate or all at once"))
            print("%-8s %-22s %-5s %4s  %-8s %-8s %-8s %-14s %s" % ("engine", "GPU", "kind", "rows", "TTFT", "TPOT", "tok/s",
                                                               "inside band", "TPOT bound <= measured"))
            groups = {}
            for r in part:
                groups.setdefault((r["engine"], r["gpu"], "MoE" if r["moe"] else "dense"), []).append(r)
            for key in sorted(groups) + [("all", "", "")]:
                rs = part if key[0] == "all" else groups[key]
                ttft = [r["ttft"]["error"] for r in rs if "ttft" in r]
                tpot = [r["tpot"]["error"] for r in rs if "tpot" in r]
                tps = [r["tps"]["error"] for r in rs if "tps" in r]
                inside = [abs(r[k]["error"]) <= r["band"] for r in rs for k in ("tpot", "tps") if k in r]
                bounds = [r["tpot"]["bound"] <= r["tpot"]["measured"] * 1.0000001 for r in rs if "tpot" in r]
                print("%-8s %-22s %-5s %4d  %-8s %-8s %-8s %-14s %s" % (
                    key[0], key[1], key[2], len(rs), mdape(ttft), mdape(tpot), mdape(tps),
                    "%d of %d" % (sum(inside), len(inside)), "%d of %d" % (sum(bounds), len(bounds))))
                if key[0] == "all" and held and controlled and tpot:
                    worst_controlled_tpot = median_abs(tpot) * 100
    print("\nskipped:")
    for why, ids in sorted(skipped.items()):
        print("  %d: %s (%s)" % (len(ids), why, ", ".join(ids[:6]) + (" ..." if len(ids) > 6 else "")))
    if args.json:
        json.dump(out, open(args.json, "w"), indent=1)
    if args.max_tpot_mdape is not None and worst_controlled_tpot > args.max_tpot_mdape:
        print("FAIL: held-out closed-loop TPOT MdAPE %.1f%% above %.1f%%" % (worst_controlled_tpot, args.max_tpot_mdape))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
