#!/usr/bin/env python3
"""Fit the latency estimate's step efficiencies (data/latency_efficiency.json) on
public measurements, and report its accuracy on rows it was not fitted on.

The estimate prices an engine step as (perf/step_time_model.h)
    t = per_step_s + seqs x per_seq_s + layers x per_layer_s + collectives x per_collective_s
        + memory / memory_eff + compute / compute_eff + communication
where memory, compute and communication are the roofline's own terms, which the
binary prints per plan (`latency.estimate.step_model`). Fitted by non-negative
least squares on relative error (efficiencies <= 1, costs >= 0), per GPU:

  kernel terms  memory_eff, compute_eff, per_layer_s, per_collective_s on
                TensorRT-LLM 0.9.0 static batches (tests/validation/latency):
                TPOT at batch N = one decode step of N sequences at the mean
                context; TTFT = one prefill of N x ISL tokens.
  serving terms per_step_s, per_seq_s on NIM genai-perf closed-loop rows
                (TensorRT-LLM backend, concurrency 1-250): the TPOT the binary's
                own simulation misses with the kernel terms alone.

Every fourth row of each kind (in file order) is held out and never fitted; the
report gives fitted and held-out rows apart. The band written for each GPU is the
80th percentile of its fitted rows' relative errors (a GPU without serving rows
takes the default's serving terms and band), so the held-out rows test it.
Usage:
    python3 tools/fit_latency.py [--binary build/preflight] [--write]
        [--max-heldout-tpot-mdape PCT]
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CSV = ROOT / "tests/validation/latency/latency-dev.csv"
DATA = ROOT / "data/latency_efficiency.json"
TARGET = DATA  # where fits are written and read back: DATA with --write, else a temporary file

# Models: the catalogue entry with the same shapes. Llama-2-70B is Llama 3's 70B
# shape with a 32,000 vocabulary (its embedding and head are 1.5% of the weights).
MODELS = {
    "meta-llama/Meta-Llama-3-8B-Instruct": "llama-3-8b",
    "meta-llama/Meta-Llama-3-70B-Instruct": "llama-3.1-70b",
    "meta-llama/Llama-2-70b-hf": "llama-3.1-70b",
    "meta-llama/Llama-2-7b-hf": "codellama-7b",
    "mistralai/Mixtral-8x7B-v0.1": "mixtral-8x7b",
}
GPUS = {
    "A100-SXM-80GB": "nvidia-a100-80gb-sxm",
    "H100-SXM": "nvidia-h100-sxm-80gb",
    "H100-NVL": "nvidia-h100-nvl-94gb",
    "H200-SXM": "nvidia-h200-sxm-141gb",
    "L40S": "nvidia-l40s",
    "L40": "nvidia-l40",
}
WIDE = 64  # StepTimeModel's wide-batch sample


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def command(binary, row, concurrency=None):
    model, gpu = MODELS[row["model"]], GPUS[row["gpu"]]
    isl = max(1, round(num(row["isl"])))
    osl = max(1, round(num(row["osl"])))
    tp = int(num(row["tp"]) or num(row["gpu_count"]) or 1)
    count = int(num(row["gpu_count"]) or tp)
    cmd = [binary, "plan", model, "--gpus", "%dx%s" % (count, gpu), "--tp", str(tp), "--pp", "1",
           "--dp", str(max(1, count // tp)), "--input-tokens", str(isl), "--output-tokens", str(osl),
           "--concurrency", str(concurrency or int(num(row["concurrency"]) or 1)),
           "--context", str(isl + osl), "--format", "json", "--latency-efficiency", str(TARGET)]
    if row["precision"].upper().startswith("FP8"):
        cmd += ["--quantize", "fp8", "--kv-dtype", "fp8"]  # TensorRT-LLM's FP8 builds quantize the KV cache too
    return cmd


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode not in (0, 1):
        return None
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError:
        return None


def weights_s(m, n):
    n = min(max(n, 1), WIDE)
    return m["weights_s_1"] + (m["weights_s_64"] - m["weights_s_1"]) * (n - 1) / (WIDE - 1)


def step_terms(m, decode, context, prefill):
    """(memory, compute, communication) seconds of a step: StepTimeModel's lines."""
    memory = weights_s(m, decode + prefill) + m["kv_s_per_context_token"] * context
    compute = (m["decode_compute_s_per_seq"] * decode + m["attention_compute_s_per_context_token"] * context
               + m["prefill_compute_s_per_token"] * prefill)
    comm = m["decode_comm_s_per_seq"] * decode + m["prefill_comm_s_per_token"] * prefill
    return memory, compute, comm


def nnls(rows, k):
    """Non-negative least squares for y = sum_i x_i v_i (every subset of the k
    variables tried; the best feasible kept). rows: (y, [v_1..v_k], weight)."""
    best = None
    for mask in range(1, 1 << k):
        idx = [i for i in range(k) if mask >> i & 1]
        n = len(idx)
        ata = [[0.0] * n for _ in range(n)]
        atb = [0.0] * n
        for y, v, w in rows:
            for i in range(n):
                atb[i] += w * v[idx[i]] * y
                for j in range(n):
                    ata[i][j] += w * v[idx[i]] * v[idx[j]]
        sol = gauss(ata, atb)
        if sol is None or any(x < 0 for x in sol):
            continue
        full = [0.0] * k
        for i, x in zip(idx, sol):
            full[i] = x
        sse = sum(w * (y - sum(f * vv for f, vv in zip(full, v))) ** 2 for y, v, w in rows)
        if best is None or sse < best[0]:
            best = (sse, full)
    return best[1] if best else [0.0] * k


def gauss(a, b):
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[p][c]) < 1e-30:
            return None
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(samples):
    """samples: (t_measured, memory, compute, comm, layers, collectives). Efficiencies
    <= 1: the variables are 1/eff - 1 >= 0 over the base memory + compute + comm;
    per-layer and per-collective costs >= 0. Relative error is minimised."""
    rows = [(t - (mem + comp + comm), [layers, coll, mem, comp], 1.0 / (t * t))
            for t, mem, comp, comm, layers, coll in samples]
    pl, pc, a, b = nnls(rows, 4)
    return {"memory": 1.0 / (1.0 + a), "compute": 1.0 / (1.0 + b), "per_layer_s": pl, "per_collective_s": pc}


def predict(e, mem, comp, comm, layers, coll):
    return e["per_layer_s"] * layers + e["per_collective_s"] * coll + mem / e["memory"] + comp / e["compute"] + comm


def pct80(xs):
    xs = sorted(abs(x) for x in xs)
    return xs[min(len(xs) - 1, int(0.8 * len(xs)))] if xs else None


def median_abs(xs):
    return statistics.median(abs(x) for x in xs) if xs else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=str(ROOT / "build/preflight"))
    ap.add_argument("--write", action="store_true", help="write data/latency_efficiency.json")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--max-heldout-tpot-mdape", type=float, default=None,
                    help="gate: fail when a GPU's held-out NIM TPOT median absolute error (%%) is above this")
    args = ap.parse_args()
    global TARGET
    if not args.write:
        import tempfile
        TARGET = Path(tempfile.mkstemp(prefix="latency-efficiency-", suffix=".json")[1])
        TARGET.write_text(DATA.read_text())  # the static rows' step terms do not depend on it; the NIM runs read the fits

    rows = [r for r in csv.DictReader(open(CSV)) if r["model"] in MODELS and r["gpu"] in GPUS]
    static = [r for r in rows if r["source_kind"].endswith("static-batch")]
    nim = [r for r in rows if r["source_kind"].endswith("genai-perf")]
    with ThreadPoolExecutor(args.jobs) as pool:
        plans = list(pool.map(lambda r: run(command(args.binary, r)), static))

    samples = {}  # gpu -> {"fit": [...], "held": [...]}
    for i, (r, plan) in enumerate(zip(static, plans)):
        est = plan and plan.get("latency", {}).get("estimate")
        if not est:
            continue
        m = est["step_model"]
        n = int(num(r["concurrency"]) or 1)
        isl, osl = num(r["isl"]), num(r["osl"])
        part = "held" if i % 4 == 3 else "fit"
        s = samples.setdefault(r["gpu"], {"fit": [], "held": []})
        if num(r["tpot_ms_mean"]):
            s[part].append(("tpot", r["id"], num(r["tpot_ms_mean"]) / 1e3, *step_terms(m, n, n * (isl + osl / 2), 0),
                            m["layers"], m["collectives"]))
        if num(r["ttft_ms_mean"]):
            s[part].append(("ttft", r["id"], num(r["ttft_ms_mean"]) / 1e3, *step_terms(m, 0, 0, n * isl),
                            m["layers"], m["collectives"]))

    fits = {}
    every = [x for s in samples.values() for x in s["fit"]]
    fits["default"] = fit([x[2:] for x in every])
    fits["default"]["rows"] = len(every)
    for gpu, s in samples.items():
        if len(s["fit"]) >= 12:
            fits[GPUS[gpu]] = fit([x[2:] for x in s["fit"]])
            fits[GPUS[gpu]]["rows"] = len(s["fit"])

    print("== Fit (TensorRT-LLM 0.9.0 static batches; every fourth row held out)")
    report = {}
    for gpu, s in sorted(samples.items()):
        e = fits.get(GPUS[gpu], fits["default"])
        for part in ("fit", "held"):
            for kind in ("tpot", "ttft"):
                errs = [predict(e, *x[3:]) / x[2] - 1 for x in s[part] if x[0] == kind]
                report.setdefault((gpu, part, kind), errs)
        print("%-14s memory %.2f compute %.2f, %.1f us/layer, %.1f us/collective | fit rows %d: TPOT MdAPE %s TTFT %s | held-out %d: TPOT %s TTFT %s" % (
            gpu, e["memory"], e["compute"], e["per_layer_s"] * 1e6, e["per_collective_s"] * 1e6, len(s["fit"]),
            fmt(median_abs(report[(gpu, "fit", "tpot")])), fmt(median_abs(report[(gpu, "fit", "ttft")])),
            len(s["held"]), fmt(median_abs(report[(gpu, "held", "tpot")])), fmt(median_abs(report[(gpu, "held", "ttft")]))))

    # Serving costs (per step, per decoded sequence) on three quarters of the NIM
    # closed-loop rows: the TPOT the simulation misses with the static fit alone.
    for f in fits.values():
        f.setdefault("per_step_s", 0.0)
        f.setdefault("per_seq_s", 0.0)
    write(fits, samples, report, None)
    first = simulate_nim(args, nim)
    serving = {}
    for i, (r, est) in enumerate(first):
        if i % 4 == 3 or not est or not num(r["tpot_ms_mean"]):
            continue
        b = num(r["concurrency"]) / max(1, int(num(r["dp"]) or 1))
        y = num(r["tpot_ms_mean"]) / 1e3 - est["tpot_s"]["mean"]
        w = 1.0 / (num(r["tpot_ms_mean"]) / 1e3) ** 2
        serving.setdefault(r["gpu"], []).append((y, [1.0, b], w))
    every_serving = [x for v in serving.values() for x in v]
    fits["default"]["per_step_s"], fits["default"]["per_seq_s"] = nnls(every_serving, 2)
    for gpu, rows_ in serving.items():
        key = GPUS[gpu]
        if key in fits and len(rows_) >= 12:
            fits[key]["per_step_s"], fits[key]["per_seq_s"] = nnls(rows_, 2)
            fits[key]["serving_rows"] = len(rows_)
    fits["default"]["serving_rows"] = len(every_serving)
    write(fits, samples, report, None)
    second = simulate_nim(args, nim)
    nim_err = {"fit": {}, "held": {}}
    for i, (r, est) in enumerate(second):
        if not est:
            continue
        part = "held" if i % 4 == 3 else "fit"
        e = nim_err[part].setdefault(r["gpu"], {"tpot": [], "ttft": [], "tps": [], "bound_ok": 0, "n": 0})
        e["n"] += 1
        if num(r["tpot_ms_mean"]):
            e["tpot"].append(est["tpot_s"]["mean"] / (num(r["tpot_ms_mean"]) / 1e3) - 1)
            e["bound_ok"] += est["_bound_tpot"] <= num(r["tpot_ms_mean"]) / 1e3 * 1.0000001
        if num(r["ttft_ms_mean"]):
            e["ttft"].append(est["ttft_s"]["mean"] / (num(r["ttft_ms_mean"]) / 1e3) - 1)
        if num(r["output_tok_s_total"]):
            e["tps"].append(est["output_tokens_per_s"] / num(r["output_tok_s_total"]) - 1)
    write(fits, samples, report, nim_err["fit"])  # the bands shown below are the data's
    final = json.load(open(TARGET))
    for part, title in (("fit", "NIM closed-loop rows whose TPOT fitted the serving costs (3 of 4)"),
                        ("held", "NIM closed-loop rows held out (every fourth): never fitted")):
        print("\n== %s, through the binary's simulation" % title)
        for gpu, e in sorted(nim_err[part].items()):
            band = final["gpus"].get(GPUS[gpu], final["default"])["band"]
            inside = [abs(x) <= band for x in e["tpot"] + e["tps"]]
            print("%-14s rows %d: TPOT MdAPE %s, TTFT MdAPE %s, output tok/s MdAPE %s; TPOT bound <= measured in %d of %d; "
                  "TPOT and tok/s inside the band (+-%.0f%%): %d of %d" % (
                      gpu, e["n"], fmt(median_abs(e["tpot"])), fmt(median_abs(e["ttft"])), fmt(median_abs(e["tps"])),
                      e["bound_ok"], len(e["tpot"]), band * 100, sum(inside), len(inside)))
    if not args.write:
        os.unlink(TARGET)
    if args.max_heldout_tpot_mdape is not None:
        worst = max((median_abs(e["tpot"]) or 0) * 100 for e in nim_err["held"].values())
        if worst > args.max_heldout_tpot_mdape or not nim_err["held"]:
            print("FAIL: held-out TPOT MdAPE %.1f%% above the gate %.1f%%" % (worst, args.max_heldout_tpot_mdape))
            return 1
        print("gate: held-out TPOT MdAPE at most %.1f%% (<= %.1f%%)" % (worst, args.max_heldout_tpot_mdape))
    return 0


def simulate_nim(args, nim):
    with ThreadPoolExecutor(args.jobs) as pool:
        plans = list(pool.map(lambda r: run(command(args.binary, r)), nim))
    out = []
    for r, plan in zip(nim, plans):
        est = plan and plan.get("latency", {}).get("estimate")
        if est:
            est["_bound_tpot"] = plan["latency"]["bound"]["tpot_s"]
        out.append((r, est))
    return out


def fmt(x):
    return "-" if x is None else "%.1f%%" % (x * 100)


def write(fits, samples, report, nim_fit):
    """The band is taken from the residuals of the rows each fit was made on
    (NIM fit rows' TPOT and output tokens/s where a GPU has them, else static fit
    rows' TPOT and TTFT), so the held-out rows test it. A GPU without serving rows takes the default's
    serving costs (they are the engine's CPU-side work) and the wider band."""
    def fit_errors(gpus):
        # The band describes the serving estimate a plan prints: where a GPU has
        # serving rows, their errors alone (kernel-only static rows fit tighter
        # and would narrow it); else the static rows'.
        serving = [x for gpu in gpus if nim_fit and gpu in nim_fit for x in nim_fit[gpu]["tpot"] + nim_fit[gpu]["tps"]]
        if serving:
            return serving
        errs = []
        for gpu in gpus:
            errs += report.get((gpu, "fit", "tpot"), []) + report.get((gpu, "fit", "ttft"), [])
        return errs
    previous = json.load(open(DATA))
    out = {"_comment": previous["_comment"], "default": None, "gpus": {}}
    d = fits["default"]
    every = fit_errors(list(samples))
    out["default"] = entry(d, pct80(every) or 0.5, d["rows"], "all GPUs' rows")
    for gpu in sorted(samples):
        key = GPUS[gpu]
        if key not in fits:
            continue
        f = dict(fits[key])
        band = pct80(fit_errors([gpu])) or out["default"]["band"]
        if not f.get("serving_rows"):
            f["per_step_s"], f["per_seq_s"] = d.get("per_step_s", 0.0), d.get("per_seq_s", 0.0)
            band = max(band, out["default"]["band"])
        out["gpus"][key] = entry(f, band, f["rows"], "%s rows" % gpu)
    # What tools/check_latency_engines.py --write fitted on vLLM and SGLang runs
    # (the engines' front ends, moe_memory) is kept as it was.
    for key in ("moe_memory", "moe_source"):
        if key in previous["default"]:
            out["default"][key] = previous["default"][key]
        for gpu, fresh in out["gpus"].items():
            if key in previous["gpus"].get(gpu, {}):
                fresh[key] = previous["gpus"][gpu][key]
    # A GPU only the vLLM/SGLang runs gave an entry: the default's fresh terms
    # under what those runs fitted.
    for gpu, old in previous["gpus"].items():
        if gpu not in out["gpus"] and ("moe_source" in old or "band_source" in old):
            out["gpus"][gpu] = dict(out["default"], source="the default's kernel and serving terms (no static or NIM "
                                    "rows for this GPU); " + out["default"]["source"])
            for key in ("moe_memory", "moe_source"):
                if key in old:
                    out["gpus"][gpu][key] = old[key]
    for gpu, fresh in out["gpus"].items():
        old = previous["gpus"].get(gpu, {})
        if "band_source" in old and old["band"] > fresh["band"]:
            fresh["band"], fresh["band_source"] = old["band"], old["band_source"]
    if "engines" in previous:
        out["engines"] = previous["engines"]
    with open(TARGET, "w") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")


def entry(f, band, fitted, what):
    return {"memory": round(f["memory"], 4), "compute": round(f["compute"], 4),
            "per_layer_s": round(f["per_layer_s"], 9), "per_collective_s": round(f["per_collective_s"], 9),
            "per_step_s": round(f.get("per_step_s", 0.0), 9), "per_seq_s": round(f.get("per_seq_s", 0.0), 9),
            "serving_rows": f.get("serving_rows", 0), "band": round(band, 3), "fitted_rows": fitted,
            "source": "tools/fit_latency.py on tests/validation/latency/latency-dev.csv: TensorRT-LLM 0.9.0 "
                      "static batches, %s; serving costs on NIM genai-perf closed-loop rows (every fourth of each "
                      "held out)" % what}


if __name__ == "__main__":
    sys.exit(main())
