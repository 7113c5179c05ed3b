#!/usr/bin/env python3
"""Validation harness: run `preflight plan` over every row of an engine truth CSV.

For each row of a truth CSV (default tests/data/reference/data/engine-truth-dev.csv;
columns as in that file), the script maps the row to a `preflight plan` command with
`--engine vllm|sglang`, runs the real binary, and compares what the planner predicts
with what the engine logged:

  * weights per rank, GiB    (engine.weights_bytes_per_rank, max over ranks)
  * KV cache tokens          (engine.kv_cache_tokens: vLLM "GPU KV cache size",
                              SGLang max_total_num_tokens)
  * max concurrency          (engine.max_concurrency; SGLang: max_running_requests)

It prints a fixed-width table (or markdown with --markdown), a summary (mean absolute
% error of weights and KV tokens over the rows reproduced, the count reproduced) and
the rows not reproduced with the reason. `--json OUT` writes everything.
`--max-weights-mae`, `--max-kv-mae` and `--min-reproduced` turn it into a gate:
exit 1 when the headline group misses them.

Rows of the vLLM V0 engine (version < 0.8, or a version cell that says "V0") are run
too but reported as a separate "legacy" group, outside the headline means.

Every mapping from a CSV cell to a command-line flag is a small rule below, driven
by the cell text, the GPU and model catalogues the binary lists, and the model
folders in tests/data/reference/models; nothing is keyed on a row id.

Python 3 standard library only. Exit codes: 0 ok, 1 a gate failed, 2 bad usage
or input (a missing CSV included).
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

GIB = float(1 << 30)
REPO = Path(__file__).resolve().parent.parent
DEFAULT_REFERENCE = REPO / "tests" / "data" / "reference"
DEFAULT_CSV = DEFAULT_REFERENCE / "data" / "engine-truth-dev.csv"
DEFAULT_MODELS = DEFAULT_REFERENCE / "models"
DEFAULT_BINARY = REPO / "build" / "preflight"
REPO_CATALOGUE = REPO / "data" / "models" / "catalogue.json"

# Columns the script reads. Others (source_url, reported_kv_gib, ...) are carried into
# the JSON output untouched.
REQUIRED_COLUMNS = [
    "id", "engine", "version", "model", "quant", "gpu", "gpu_count", "tp", "pp", "ep", "dp",
    "util", "max_model_len", "kv_dtype", "block_size", "reported_weights_gib",
    "reported_kv_tokens", "reported_max_concurrency", "other",
]

# vLLM releases before 0.8 run the V0 engine by default (engines.md 1.5): reported in the
# "legacy" group, outside the headline means.
VLLM_V1_FIRST = (0, 8)


# ----------------------------------------------------------------------------------------
# Cell parsers. Numeric cells may carry notes: "8 (inferred)", "107824 (per-rank values
# 107,312-107,824 logged)", "14.9888 (log says GB; GiB units)", "page_size 64 (DSA
# default)", "mem_fraction_static=0.8 (hardcoded ...)". The value is the number at the
# start of the cell, after at most one leading key ("page_size", "mem_fraction_static=").
# ----------------------------------------------------------------------------------------

_NUMBER = r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?"
_LEADING_NUMBER = re.compile(
    r"^\s*(?:[A-Za-z_][A-Za-z0-9_\-]*\s*[=:]?\s*)?[~≈]?\s*(" + _NUMBER + r")(?![\w.])")
_PLAIN_LEADING_NUMBER = re.compile(r"^\s*[~≈]?\s*(" + _NUMBER + r")(?![\w.])")


def leading_number(cell: Optional[str]) -> Optional[float]:
    """The number a cell starts with (after an optional key), or None.

    "8 (inferred)" -> 8.0; "page_size 64 (DSA default)" -> 64.0; "1,462,784" -> 1462784.0;
    "mem_fraction_static: not stated (0.8 ...)" -> None; "" -> None.
    """
    if cell is None:
        return None
    text = cell.strip()
    if not text:
        return None
    # A bare number first, so that "3.27-3.29" or "1e6" are not read as "key + number".
    m = _PLAIN_LEADING_NUMBER.match(text) or _LEADING_NUMBER.match(text)
    if not m:
        return None
    return float(m.group(1).replace(",", ""))


def leading_int(cell: Optional[str]) -> Optional[int]:
    value = leading_number(cell)
    if value is None or value != int(value) or value < 0:
        return None
    return int(value)


def number_list(cell: Optional[str]) -> List[float]:
    """Per-stage values "1.1;2.01" -> [1.1, 2.01]; a single value -> [value]; none -> []."""
    if cell is None:
        return []
    values = []
    for part in cell.split(";"):
        value = leading_number(part)
        if value is not None:
            values.append(value)
    return values


def logged_max(cell: Optional[str]) -> Optional[float]:
    """A logged figure; per-stage values separated by ';' compare with their max."""
    values = number_list(cell)
    return max(values) if values else None


_VERSION = re.compile(
    r"^\s*(?:(?:nightly|dev|release|version|vllm|sglang)\s+)*[~≈]?\s*v?(\d+)\.(\d+)(?:\.(\d+))?",
    re.IGNORECASE)


def parse_version(cell: Optional[str]) -> Optional[Tuple[int, int, int]]:
    """Leading x.y.z of a version cell: "0.11.0 (pod image ...)" -> (0, 11, 0),
    "~0.6.4 (V0 ...)" -> (0, 6, 4), "nightly ~0.11.1" -> (0, 11, 1), "~0.11" -> (0, 11, 0),
    "0.10.1.1" -> (0, 10, 1), "main (PR #11309 ...)" -> None."""
    if not cell:
        return None
    m = _VERSION.match(cell)
    if not m:
        return None
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def version_text(version: Optional[Tuple[int, int, int]]) -> Optional[str]:
    return None if version is None else "%d.%d.%d" % version


# Rows logged on an engine's main branch around a pull request: the release whose
# rules they ran, from the engine's history. Before the PR: the release main was
# at; with it: the first release that contains it.
# sglang PR #11309 (a4b424c6, merged 2025-10-09): main was at 0.5.3 (bump a4a3d8239,
# 2025-10-06); first released in 0.5.3.post1 (bump 758b887ad, 2025-10-09).
MAIN_BRANCH_RELEASES = {
    ("sglang", 11309): ("0.5.3", "0.5.3.post1"),
}


def main_branch_release(engine: str, cell: Optional[str]) -> Optional[str]:
    """"main before PR #11309 (2025-10)" -> "0.5.3"; "main (PR #11309, 2025-10)" -> "0.5.3.post1"."""
    m = re.match(r"\s*main\b(.*?)\bPR #(\d+)", cell or "")
    if not m:
        return None
    known = MAIN_BRANCH_RELEASES.get((engine, int(m.group(2))))
    if known is None:
        return None
    return known[0] if re.search(r"\bbefore\b", m.group(1)) else known[1]


def is_legacy(engine: str, version_cell: str, version: Optional[Tuple[int, int, int]]) -> bool:
    """vLLM V0 engine: a version before 0.8, or a version cell that says V0."""
    if engine != "vllm":
        return False
    if version is not None and version[:2] < VLLM_V1_FIRST:
        return True
    return re.search(r"\bV0\b", version_cell or "") is not None


# Quantization column -> --quantize. The method is read from the text before any
# parenthesis ("fp8 (block)": head "fp8", note "block"). Online / repository quantizations
# preflight can apply to a 16-bit base config map to a --quantize value; any other method
# (mxfp4, fp8 block, int4 QAT, ...) must come from the config's own quantization_config.
_QUANT_RULES: List[Tuple[str, str, Optional[str]]] = [
    # (regex on the head, regex on the note or "", --quantize value)
    (r"^(none|no|bf16|bfloat16|fp16|float16|auto)?$", "", None),
    (r"fp8[-_ ]dynamic", "", "fp8-dynamic"),
    (r"\bw8a8\b", "", "w8a8"),
    (r"\bw4a16\b", "", "w4a16"),
    (r"^fp8$", r"\bonline\b", "fp8"),
]


@dataclass
class QuantMapping:
    kind: str                      # "none" | "online" | "native"
    flag: Optional[str] = None     # --quantize value for "online"
    text: str = ""


def map_quant(cell: Optional[str]) -> QuantMapping:
    text = (cell or "").strip()
    head, _, rest = text.partition("(")
    head = head.strip().lower()
    note = rest.rstrip(")").strip().lower()
    for head_re, note_re, flag in _QUANT_RULES:
        if re.search(head_re, head) and (not note_re or re.search(note_re, note)):
            return QuantMapping("none" if flag is None else "online", flag, text)
    return QuantMapping("native", None, text)


class Unsupported(Exception):
    """A cell the script cannot turn into a flag (the row is not reproduced)."""


def map_kv_dtype(cell: Optional[str]) -> Optional[str]:
    """kv_dtype column -> --kv-dtype: fp8 / fp8_e4m3 / fp8_e5m2 -> fp8; auto / bf16 -> None."""
    head = (cell or "").strip().lower().split("(")[0].strip()
    if head in ("", "auto", "bf16", "bfloat16", "fp16", "float16", "half", "default"):
        return None
    if re.match(r"^fp8(\b|_)", head):
        return "fp8"
    raise Unsupported("kv dtype %r has no --kv-dtype mapping" % cell)


# Weight dtype in the `other` column: "dtype=bfloat16", "dtype float16"; not "kv_dtype".
_DTYPE = re.compile(r"(?<![\w-])dtype\s*[=: ]\s*(auto|bfloat16|bf16|float16|fp16|half|float32|fp32|float)\b",
                    re.IGNORECASE)
_DTYPE_NAMES = {"bf16": "bfloat16", "fp16": "float16", "half": "float16", "fp32": "float32",
                "float": "float32"}

# Engine flags quoted in the `other` column that preflight has an option for.
# (regex on the cell, preflight option, takes a value)
_OTHER_FLAGS: List[Tuple[str, str, bool]] = [
    (r"--decode-context-parallel-size[ =](\d+)", "--dcp", True),
    (r"--dcp[ =](\d+)", "--dcp", True),
    (r"--max-num-batched-tokens[ =](\d+)", "--max-num-batched-tokens", True),
    (r"--chunked-prefill-size[ =](\d+)", "--max-num-batched-tokens", True),
    (r"--max-num-seqs[ =](\d+)", "--max-num-seqs", True),
    (r"--max-running-requests[ =](\d+)", "--max-num-seqs", True),
    (r"--mamba-full-memory-ratio[ =]([\d.]+)", "--mamba-full-memory-ratio", True),
    (r"--enforce-eager\b(?![ =]+(?:false|0)\b)", "--enforce-eager", False),
    (r"--mamba-ssm-dtype[ =](bfloat16|bf16|float32|fp32)\b", "--state-dtype", True),
    # vLLM's "non-default args" dict, as the log prints it ("max_num_seqs: 64", "'max_num_seqs': 64").
    (r"\bmax_num_batched_tokens'?[ =:]+(\d+)", "--max-num-batched-tokens", True),
    (r"\bmax_num_seqs'?[ =:]+(\d+)", "--max-num-seqs", True),
    (r"\benforce_eager'?[ =:]+True\b", "--enforce-eager", False),
]

# SGLang's radix cache as the cell states it: "--disable-radix-cache" or "radix cache
# disabled" -> off; "--mamba-radix-cache-strategy extra_buffer_lazy" -> lazy.
_RADIX_OFF = re.compile(r"--disable-radix-cache\b|radix cache (?:is )?(?:disabled|off)\b", re.IGNORECASE)
_RADIX_LAZY = re.compile(r"extra_buffer_lazy\b", re.IGNORECASE)
_STATE_DTYPE_NAMES = {"bfloat16": "bf16", "bf16": "bf16", "float32": "fp32", "fp32": "fp32"}


def parse_other(cell: Optional[str]) -> Dict[str, Any]:
    """Settings the free-text `other` column states: dtype, engine flags, DP attention."""
    text = cell or ""
    out: Dict[str, Any] = {"flags": []}
    m = _DTYPE.search(text)
    if m:
        name = m.group(1).lower()
        name = _DTYPE_NAMES.get(name, name)
        if name != "auto":
            out["dtype"] = name
    seen = set()
    for pattern, option, takes_value in _OTHER_FLAGS:
        if option in seen:
            continue
        m = re.search(pattern, text, re.IGNORECASE)
        if m:
            seen.add(option)
            value = m.group(1) if takes_value else None
            if option == "--state-dtype":
                value = _STATE_DTYPE_NAMES[value.lower()]
            out["flags"] += [option, value] if takes_value else [option]
    if _RADIX_OFF.search(text):
        out["flags"] += ["--radix-cache", "off"]
    elif _RADIX_LAZY.search(text):
        out["flags"] += ["--radix-cache", "lazy"]
    out["dp_attention"] = re.search(r"--enable-dp-attention\b", text) is not None
    return out


# GPU column -> catalogue id. The cell names a family with optional size and qualifiers:
# "H100-80GB (SXM, 79.19 GiB)", "A100-40GB", "B200", "RTX 3090 (23.58 GiB)",
# "Tesla T4 16GB", "A100-80GB (inferred from numbers)". Candidate names are tried against
# the ids and aliases `preflight gpus --format json` lists; a candidate whose catalogue
# entry has a different nominal size than the cell states is rejected.
_GPU_NOISE_WORDS = {"nvidia", "tesla", "geforce", "amd", "instinct", "intel", "google", "gpu",
                    "hbm", "hbm2", "hbm2e", "hbm3", "hbm3e", "gddr6", "gddr6x", "gddr7"}
_GPU_FORM_FACTORS = ("sxm", "sxm4", "sxm5", "sxm6", "pcie", "nvl", "hgx", "oam")
_VENDOR_PREFIXES = ("nvidia-", "amd-", "intel-", "google-", "aws-", "apple-")


@dataclass
class GpuCell:
    family: List[str]            # name tokens without size/noise: ["h100"], ["rtx", "3090"]
    size_gb: Optional[float]     # "80GB" -> 80
    form_factor: Optional[str]   # "sxm", "pcie", ...


def parse_gpu_cell(cell: Optional[str]) -> GpuCell:
    text = re.sub(r"(\d)\s+(gb|gib)\b", r"\1\2", (cell or "").strip().lower())  # "80 GB" -> "80gb"
    head, _, rest = text.partition("(")
    tokens = [t for t in re.split(r"[\s_\-/,]+", head) if t]
    size = None
    family = []
    for tok in tokens:
        m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*g(?:b|ib)?", tok)
        if m and size is None:
            size = float(m.group(1))
        elif tok not in _GPU_NOISE_WORDS:
            family.append(tok)
    form = None
    for tok in re.split(r"[\s,;/]+", rest.rstrip(")") + " " + " ".join(family)):
        if tok in _GPU_FORM_FACTORS:
            form = tok
            break
    family = [t for t in family if t not in _GPU_FORM_FACTORS]
    return GpuCell(family, size, form)


def gpu_candidates(g: GpuCell) -> List[str]:
    if not g.family:
        return []
    joined = ["-".join(g.family), "".join(g.family)]
    if len(g.family) > 1:
        joined.append(g.family[-1])          # "rtx 3090" -> "3090"
    size = None if g.size_gb is None else "%dgb" % round(g.size_gb)
    out = []
    for name in joined:
        if g.form_factor and size:
            out += ["%s-%s-%s" % (name, g.form_factor, size), "%s-%s-%s" % (name, size, g.form_factor)]
        if g.form_factor:
            out.append("%s-%s" % (name, g.form_factor))
        if size:
            out += ["%s-%s" % (name, size), name + size]
        out.append(name)
    seen, unique = set(), []
    for c in out:
        if c not in seen:
            seen.add(c)
            unique.append(c)
    return unique


def gpu_index(catalogue: List[Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
    """name -> catalogue entry, over ids, ids without vendor prefix, and aliases."""
    index: Dict[str, Dict[str, Any]] = {}
    for entry in catalogue:
        gid = str(entry.get("id", "")).lower()
        names = [gid] + [str(a).lower() for a in entry.get("aliases", []) or []]
        for prefix in _VENDOR_PREFIXES:
            if gid.startswith(prefix):
                names.append(gid[len(prefix):])
        for name in names:
            index.setdefault(name, entry)
    return index


def resolve_gpu(cell: Optional[str], catalogue: List[Dict[str, Any]]) -> Optional[str]:
    g = parse_gpu_cell(cell)
    index = gpu_index(catalogue)
    for cand in gpu_candidates(g):
        entry = index.get(cand)
        if entry is None:
            continue
        nominal = entry.get("nominal_gb")
        if g.size_gb is not None and isinstance(nominal, (int, float)) and nominal > 0:
            if abs(float(nominal) - g.size_gb) / g.size_gb > 0.06:
                continue
        return str(entry["id"])
    return None


# ----------------------------------------------------------------------------------------
# Models: hub id -> tests/data/reference/models/<org>__<name> (case-insensitive) with config.json, or a
# single config*.json (e.g. config.base-sibling.*.json, a quantized repo's base config);
# else a catalogue model whose hub_id / name / alias matches.
# ----------------------------------------------------------------------------------------

@dataclass
class ModelRef:
    arg: str                          # what to pass as MODEL
    source: str                       # "folder:<file>" or "catalogue:<name>"
    has_quantization_config: Optional[bool]  # None when unknown


def config_has_quantization(config: Dict[str, Any]) -> bool:
    if not isinstance(config, dict):
        return False
    if config.get("quantization_config") or config.get("compression_config"):
        return True
    return any(config_has_quantization(config.get(k))
               for k in ("text_config", "llm_config", "language_config"))


def _read_json(path: Path) -> Optional[Any]:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def pick_config(folder: Path) -> Tuple[Optional[Path], str]:
    """config.json, else the only config*.json; (None, why) otherwise."""
    files = sorted(p.name for p in folder.iterdir() if p.is_file())
    if "config.json" in files:
        return folder / "config.json", ""
    cands = [f for f in files if f.lower().startswith("config") and f.lower().endswith(".json")]
    if len(cands) == 1:
        return folder / cands[0], ""
    if not cands:
        return None, "folder %s has no config*.json" % folder.name
    return None, "folder %s has %d config*.json files and no config.json" % (folder.name, len(cands))


def find_model_folder(hub_id: str, models_dir: Path) -> Optional[Path]:
    key = hub_id.strip().lower().replace("/", "__")
    if not key or not models_dir.is_dir():
        return None
    for p in sorted(models_dir.iterdir()):
        if p.is_dir() and p.name.lower() == key:
            return p
    return None


def catalogue_config(name: str) -> Optional[Dict[str, Any]]:
    """The config the binary embeds for a catalogue model, read from this repository's
    data/models/catalogue.json (None when not available)."""
    cat = _read_json(REPO_CATALOGUE)
    if not isinstance(cat, dict):
        return None
    for m in cat.get("models", []):
        if m.get("name") == name and m.get("config"):
            config = _read_json(REPO / m["config"])
            return config if isinstance(config, dict) else None
    return None


def find_catalogue_model(hub_id: str, models: List[Dict[str, Any]]) -> Optional[str]:
    key = hub_id.strip().lower()
    for m in models:
        names = [str(m.get("hub_id", "")).lower(), str(m.get("name", "")).lower()]
        names += [str(a).lower() for a in m.get("aliases", []) or []]
        if key in names:
            return str(m["name"])
    return None


def resolve_model(hub_id: str, models_dir: Path, catalogue: List[Dict[str, Any]],
                  prefer_catalogue: bool = False) -> Tuple[Optional[ModelRef], str]:
    why = []

    def from_folder(where: Path = models_dir) -> Optional[ModelRef]:
        folder = find_model_folder(hub_id, where)
        if folder is None:
            why.append("no folder %s in %s" % (hub_id.replace("/", "__"), where))
            return None
        path, reason = pick_config(folder)
        if path is None:
            why.append(reason)
            return None
        config = _read_json(path)
        if not isinstance(config, dict):
            why.append("%s is not a JSON object" % path)
            return None
        # A folder with config.json is given as the folder, as a user would give a snapshot: its
        # hf_quant_config.json, modules.json and index are read beside the config.
        return ModelRef(str(folder) if path.name == "config.json" else str(path),
                        "folder:%s/%s" % (folder.name, path.name), config_has_quantization(config))

    def from_catalogue() -> Optional[ModelRef]:
        name = find_catalogue_model(hub_id, catalogue)
        if name is None:
            why.append("not in the model catalogue")
            return None
        config = catalogue_config(name)
        return ModelRef(name, "catalogue:%s" % name,
                        None if config is None else config_has_quantization(config))

    order = [from_catalogue, from_folder] if prefer_catalogue else [from_folder, from_catalogue]
    # Then the reference models (tests/data/reference/models), which serve every CSV.
    if models_dir.resolve() != DEFAULT_MODELS.resolve() and DEFAULT_MODELS.is_dir():
        order.append(lambda: from_folder(DEFAULT_MODELS))
    for resolver in order:
        ref = resolver()
        if ref is not None:
            return ref, ""
    return None, "no config for the model (%s)" % "; ".join(why)


# ----------------------------------------------------------------------------------------
# One row -> one command.
# ----------------------------------------------------------------------------------------

@dataclass
class RowPlan:
    row: Dict[str, str]
    group: str                          # "headline" | "legacy"
    version: Optional[str]
    gpu_id: Optional[str] = None
    model: Optional[ModelRef] = None
    command: List[str] = field(default_factory=list)
    why: List[str] = field(default_factory=list)   # reasons the row cannot run
    layout: str = ""


def layout_of(row: Dict[str, str], engine: str, gpu_count: Optional[int],
              other: Dict[str, Any]) -> Tuple[Dict[str, Optional[int]], List[str]]:
    """tp/pp/dp/ep as preflight means them. SGLang's --tp counts every GPU of an instance;
    with DP attention (--enable-dp-attention, or tp x pp x dp more than the GPUs while
    tp x pp equals them) attention runs at TP tp/dp inside it: preflight's --tp is that."""
    lay = {k: leading_int(row.get(k)) for k in ("tp", "pp", "dp", "ep")}
    notes = []
    tp, pp, dp = lay["tp"], lay["pp"] or 1, lay["dp"] or 1
    if engine == "sglang" and tp and dp > 1 and tp % dp == 0:
        over = gpu_count is not None and tp * pp * dp > gpu_count and tp * pp == gpu_count
        if other.get("dp_attention") or over:
            lay["tp"] = tp // dp
            notes.append("SGLang DP attention: --tp %d --dp %d -> attention TP %d" % (tp, dp, tp // dp))
    return lay, notes


def build_plan(row: Dict[str, str], binary: str, models_dir: Path,
               gpus: List[Dict[str, Any]], models: List[Dict[str, Any]],
               prefer_catalogue: bool = False, withhold_version: bool = False) -> RowPlan:
    engine = (row.get("engine") or "").strip().lower()
    version = parse_version(row.get("version"))
    plan = RowPlan(row, "legacy" if is_legacy(engine, row.get("version", ""), version) else "headline",
                   version_text(version) or main_branch_release(engine, row.get("version")))
    if engine not in ("vllm", "sglang"):
        plan.why.append("engine %r is neither vllm nor sglang" % row.get("engine"))

    model, why = resolve_model(row.get("model", ""), models_dir, models, prefer_catalogue)
    plan.model = model
    if model is None:
        plan.why.append(why)

    gpu_count = leading_int(row.get("gpu_count"))
    plan.gpu_id = resolve_gpu(row.get("gpu"), gpus)
    if plan.gpu_id is None:
        plan.why.append("unknown GPU %r" % row.get("gpu"))
    if not gpu_count:
        plan.why.append("no GPU count (%r)" % row.get("gpu_count"))

    quant = map_quant(row.get("quant"))
    quantize = None
    if quant.kind == "online":
        # A config that already carries its quantization_config is the quantized checkpoint.
        if not (model and model.has_quantization_config):
            quantize = quant.flag
    elif quant.kind == "native" and model is not None and model.has_quantization_config is False:
        plan.why.append("quant %r is not in the config (no quantization_config) and has no --quantize mapping"
                        % quant.text)

    try:
        kv_dtype = map_kv_dtype(row.get("kv_dtype"))
    except Unsupported as e:
        kv_dtype = None
        plan.why.append(str(e))

    other = parse_other(row.get("other"))
    lay, lay_notes = layout_of(row, engine, gpu_count, other)
    plan.layout = "/".join("-" if lay[k] is None else str(lay[k]) for k in ("tp", "pp", "dp", "ep"))

    if plan.why:
        return plan

    cmd = [binary, "plan", model.arg, "--gpus", "%dx%s" % (gpu_count, plan.gpu_id),
           "--engine", engine, "--format", "json"]
    if plan.version is not None and not withhold_version:
        cmd += ["--engine-version", plan.version]
    context = leading_int(row.get("max_model_len"))
    if context:
        cmd += ["--context", str(context)]
    util = leading_number(row.get("util"))
    if util is not None:
        cmd += ["--gpu-memory-utilization" if engine == "vllm" else "--mem-fraction-static", repr(util)]
    for k in ("tp", "pp", "dp", "ep"):
        if lay[k]:
            cmd += ["--" + k, str(lay[k])]
    if kv_dtype:
        cmd += ["--kv-dtype", kv_dtype]
    block = leading_int(row.get("block_size"))
    if block:
        cmd += ["--block-size", str(block)]
    if quantize:
        cmd += ["--quantize", quantize]
    if other.get("dtype"):
        cmd += ["--dtype", other["dtype"]]
    cmd += other["flags"]
    plan.command = cmd
    return plan


# ----------------------------------------------------------------------------------------
# Running the binary and reading engine.*.
# ----------------------------------------------------------------------------------------

def run_binary(cmd: List[str], timeout: float) -> Tuple[int, str, str]:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return -1, "", "timed out after %gs" % timeout
    except OSError as e:
        return -1, "", str(e)


def first_line(text: str) -> str:
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


def _number(value: Any) -> Optional[float]:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    if isinstance(value, dict):
        for k in ("value", "bytes"):
            if k in value:
                return _number(value[k])
    return None


def _max_of(value: Any, key: str = "bytes") -> Optional[float]:
    """A number, or the max over a list of numbers / objects with `key` or weights_bytes,
    or over a {rank: number} object."""
    if isinstance(value, dict) and value and all(_number(v) is not None for v in value.values()) \
            and not any(k in value for k in ("value", "bytes")):
        value = list(value.values())
    if isinstance(value, list):
        values = []
        for v in value:
            if isinstance(v, dict):
                v = v.get(key, v.get("weights_bytes", v.get("value")))
            n = _number(v)
            if n is not None:
                values.append(n)
        return max(values) if values else None
    return _number(value)


def engine_figures(doc: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """engine.* from plan JSON, or None when the binary printed no engine section."""
    eng = doc.get("engine") if isinstance(doc, dict) else None
    if not isinstance(eng, dict):
        return None
    workers = eng.get("workers") if isinstance(eng.get("workers"), list) else None
    weights = _max_of(eng.get("weights_bytes_per_rank"))
    if weights is None and workers:
        weights = _max_of(workers, "weights_bytes")
    out = {
        "weights_bytes_per_rank": weights,
        "kv_cache_tokens": _number(eng.get("kv_cache_tokens")),
        "max_concurrency": _number(eng.get("max_concurrency")),
        "max_running_requests": _number(eng.get("max_running_requests")),
        "workers": workers,
        "failure": eng.get("failure") or None,
        "version": eng.get("version"),
        "range": None,
    }
    rng = eng.get("range")
    if isinstance(rng, dict):
        lo, hi = _number(rng.get("kv_cache_tokens_min")), _number(rng.get("kv_cache_tokens_max"))
        if lo is not None and hi is not None:
            out["range"] = (lo, hi)
    if all(out[k] is None for k in ("weights_bytes_per_rank", "kv_cache_tokens", "max_concurrency",
                                    "max_running_requests")):
        return None
    return out


def run_plan(plan: RowPlan, timeout: float) -> Tuple[int, str, str]:
    rc, out, err = run_binary(plan.command, timeout)
    # A config file not named config.json the binary refuses: retry with a copy so named.
    if rc == 2 and plan.model and plan.model.source.startswith("folder:") \
            and not plan.model.arg.endswith("config.json") and not os.path.isdir(plan.model.arg):
        with tempfile.TemporaryDirectory(prefix="validate-engines-") as tmp:
            shutil.copyfile(plan.model.arg, os.path.join(tmp, "config.json"))
            cmd = list(plan.command)
            cmd[cmd.index(plan.model.arg)] = os.path.join(tmp, "config.json")
            rc2, out2, err2 = run_binary(cmd, timeout)
        if rc2 in (0, 1):
            return rc2, out2, err2
    return rc, out, err


def pct_error(pred: Optional[float], logged: Optional[float]) -> Optional[float]:
    if pred is None or logged is None or logged == 0:
        return None
    return (pred - logged) / abs(logged) * 100.0


def evaluate(plan: RowPlan, timeout: float) -> Dict[str, Any]:
    row = plan.row
    engine = (row.get("engine") or "").strip().lower()
    logged = {
        "weights_gib": logged_max(row.get("reported_weights_gib")),
        "kv_tokens": logged_max(row.get("reported_kv_tokens")),
        "concurrency": logged_max(row.get("reported_max_concurrency")),
    }
    result: Dict[str, Any] = {
        "id": row.get("id"), "engine": engine, "version": row.get("version"),
        "engine_version": plan.version, "group": plan.group, "model": row.get("model"),
        "model_source": plan.model.source if plan.model else None,
        "gpu": row.get("gpu"), "gpu_id": plan.gpu_id, "gpu_count": leading_int(row.get("gpu_count")),
        "layout": plan.layout, "command": plan.command, "exit_code": None, "fits": None,
        "engine_failure": None, "workers": None, "logged": logged,
        "predicted": {"weights_gib": None, "kv_tokens": None, "concurrency": None,
                      "max_running_requests": None},
        "error_pct": {"weights_gib": None, "kv_tokens": None, "concurrency": None},
        "reproduced": False, "why": None,
        # Without a version: the printed engine.range of KV tokens and whether the log falls in it.
        "kv_range": None, "kv_in_range": None,
    }
    if plan.why:
        result["why"] = "; ".join(plan.why)
        return result
    rc, out, err = run_plan(plan, timeout)
    result["exit_code"] = rc
    if rc == 2:
        result["why"] = "input error: %s" % (first_line(err) or first_line(out) or "exit 2")
        return result
    if rc not in (0, 1):
        result["why"] = "preflight failed (exit %s): %s" % (rc, first_line(err) or first_line(out))
        return result
    try:
        doc = json.loads(out)
    except ValueError:
        result["why"] = "plan output is not JSON (exit %d): %s" % (rc, first_line(err) or first_line(out))
        return result
    verdict = doc.get("verdict") if isinstance(doc, dict) else None
    if isinstance(verdict, dict):
        result["fits"] = verdict.get("fits")
    eng = engine_figures(doc)
    if eng is None:
        result["why"] = "engine output missing (no engine.* keys in plan JSON)"
        return result
    result["engine_failure"] = eng["failure"]
    result["workers"] = eng["workers"]
    pred = result["predicted"]
    if eng["weights_bytes_per_rank"] is not None:
        pred["weights_gib"] = eng["weights_bytes_per_rank"] / GIB
    pred["kv_tokens"] = eng["kv_cache_tokens"]
    if eng["range"] is not None:
        result["kv_range"] = list(eng["range"])
        if logged["kv_tokens"] is not None:
            result["kv_in_range"] = eng["range"][0] <= logged["kv_tokens"] <= eng["range"][1]
    pred["max_running_requests"] = eng["max_running_requests"]
    # The concurrency column: vLLM's "Maximum concurrency"; SGLang logs max_running_requests.
    if engine == "sglang" and eng["max_running_requests"] is not None:
        pred["concurrency"] = eng["max_running_requests"]
    else:
        pred["concurrency"] = eng["max_concurrency"]
    compared = []
    for key in ("weights_gib", "kv_tokens", "concurrency"):
        result["error_pct"][key] = pct_error(pred[key], logged[key])
        if result["error_pct"][key] is not None:
            compared.append(key)
    missing = [k for k in ("weights_gib", "kv_tokens", "concurrency")
               if logged[k] is not None and pred[k] is None]
    if compared:
        result["reproduced"] = True
        if missing:
            result["why"] = "no prediction for %s" % ", ".join(missing)
    elif all(v is None for v in logged.values()):
        result["why"] = "no logged figure to compare"
    else:
        result["why"] = "no prediction for %s" % ", ".join(missing)
    return result


# ----------------------------------------------------------------------------------------
# Summary, gate and output.
# ----------------------------------------------------------------------------------------

def summarize(results: List[Dict[str, Any]], group: str) -> Dict[str, Any]:
    rows = [r for r in results if r["group"] == group]
    reproduced = [r for r in rows if r["reproduced"]]
    out: Dict[str, Any] = {"rows": len(rows), "reproduced": len(reproduced)}
    ranged = [r for r in reproduced if r.get("kv_in_range") is not None]
    out["kv_in_range"] = {"n": len(ranged), "inside": sum(1 for r in ranged if r["kv_in_range"])}
    for key in ("weights_gib", "kv_tokens", "concurrency"):
        errs = [abs(r["error_pct"][key]) for r in reproduced if r["error_pct"][key] is not None]
        worst = max(reproduced, key=lambda r: abs(r["error_pct"][key] or 0), default=None) if errs else None
        out[key] = {
            "n": len(errs),
            "mae_pct": sum(errs) / len(errs) if errs else None,
            "max_abs_pct": max(errs) if errs else None,
            "worst_row": worst["id"] if worst else None,
            "worst_pct": worst["error_pct"][key] if worst else None,
        }
    return out


def gate(summary: Dict[str, Any], args: argparse.Namespace) -> List[Dict[str, Any]]:
    checks = []

    def check(name: str, value: Optional[float], limit: Optional[float], upper: bool) -> None:
        if limit is None:
            return
        ok = value is not None and (value <= limit if upper else value >= limit)
        checks.append({"check": name, "value": value, "limit": limit, "upper": upper, "passed": ok})

    head = summary["headline"]
    check("weights MAE % (headline)", head["weights_gib"]["mae_pct"], args.max_weights_mae, True)
    check("KV tokens MAE % (headline)", head["kv_tokens"]["mae_pct"], args.max_kv_mae, True)
    check("rows reproduced (headline)", head["reproduced"], args.min_reproduced, False)
    ranged = head.get("kv_in_range") or {"n": 0, "inside": 0}
    in_range_pct = 100.0 * ranged["inside"] / ranged["n"] if ranged["n"] else None
    check("logged KV tokens inside engine.range %", in_range_pct, args.min_in_range_pct, False)
    return checks


def fmt_num(value: Optional[float], kind: str) -> str:
    if value is None:
        return "-"
    if kind == "gib":
        return "%.2f" % value
    if kind == "int":
        return "{:,}".format(int(round(value)))
    if kind == "conc":
        return "%.2f" % value if value < 1000 else "{:,}".format(int(round(value)))
    if kind == "pct":
        return "%+.2f" % value
    return str(value)


def short_model(hub_id: str, width: int = 30) -> str:
    name = (hub_id or "").split("/")[-1]
    return name if len(name) <= width else name[:width - 1] + "~"


def short_gpu(r: Dict[str, Any]) -> str:
    """COUNTxNAME: the catalogue id without its vendor prefix, else the cell's name."""
    name = r.get("gpu_id") or ""
    for prefix in _VENDOR_PREFIXES:
        if name.startswith(prefix):
            name = name[len(prefix):]
    if not name:
        name = "-".join((r.get("gpu") or "").split("(")[0].split()) or "?"
    return "%sx%s" % (r.get("gpu_count") or "?", name)


COLUMNS = [
    ("id", "<", lambda r: r["id"] or ""),
    ("model", "<", lambda r: short_model(r["model"])),
    ("gpu", "<", short_gpu),
    ("tp/pp/dp/ep", "<", lambda r: r["layout"] or "-"),
    ("W pred", ">", lambda r: fmt_num(r["predicted"]["weights_gib"], "gib")),
    ("W log", ">", lambda r: fmt_num(r["logged"]["weights_gib"], "gib")),
    ("W err%", ">", lambda r: fmt_num(r["error_pct"]["weights_gib"], "pct")),
    ("KV pred", ">", lambda r: fmt_num(r["predicted"]["kv_tokens"], "int")),
    ("KV log", ">", lambda r: fmt_num(r["logged"]["kv_tokens"], "int")),
    ("KV err%", ">", lambda r: fmt_num(r["error_pct"]["kv_tokens"], "pct")),
    ("conc pred", ">", lambda r: fmt_num(r["predicted"]["concurrency"], "conc")),
    ("conc log", ">", lambda r: fmt_num(r["logged"]["concurrency"], "conc")),
    ("conc err%", ">", lambda r: fmt_num(r["error_pct"]["concurrency"], "pct")),
]


def render_table(results: List[Dict[str, Any]]) -> List[str]:
    cells = [[fn(r) for _, _, fn in COLUMNS] for r in results]
    widths = [max([len(name)] + [len(c[i]) for c in cells]) for i, (name, _, _) in enumerate(COLUMNS)]

    def line(values: List[str]) -> str:
        return "  ".join(("{:%s%d}" % (COLUMNS[i][1], widths[i])).format(v) for i, v in enumerate(values)).rstrip()

    out = [line([name for name, _, _ in COLUMNS]), line(["-" * w for w in widths])]
    out += [line(c) for c in cells]
    return out


def render_markdown_table(results: List[Dict[str, Any]]) -> List[str]:
    out = ["| " + " | ".join(name for name, _, _ in COLUMNS) + " |",
           "|" + "|".join("---" if align == "<" else "---:" for _, align, _ in COLUMNS) + "|"]
    for r in results:
        out.append("| " + " | ".join(fn(r).replace("|", "\\|") for _, _, fn in COLUMNS) + " |")
    return out


def summary_lines(summary: Dict[str, Any], markdown: bool) -> List[str]:
    out = []
    for group, title in (("headline", "headline (vLLM V1 and SGLang)"),
                         ("legacy", "legacy (vLLM V0, not in the headline means)")):
        s = summary[group]
        if not s["rows"]:
            continue
        parts = ["%d of %d rows reproduced" % (s["reproduced"], s["rows"])]
        for key, label in (("weights_gib", "weights"), ("kv_tokens", "KV tokens"),
                           ("concurrency", "concurrency")):
            k = s[key]
            if k["n"]:
                parts.append("%s MAE %.2f%% over %d (worst %s %+.2f%%)" % (
                    label, k["mae_pct"], k["n"], k["worst_row"], k["worst_pct"]))
            else:
                parts.append("%s: none compared" % label)
        r = s.get("kv_in_range") or {"n": 0}
        if r["n"]:
            parts.append("logged KV tokens inside the printed engine.range (no version given) in %d of %d" % (
                r["inside"], r["n"]))
        out.append(("- **%s**: " if markdown else "%s: ") % title + "; ".join(parts))
    return out


def not_reproduced_lines(results: List[Dict[str, Any]], markdown: bool) -> List[str]:
    out = []
    for r in results:
        if r["reproduced"] and not r["why"]:
            continue
        tag = "" if not r["reproduced"] else "(partly) "
        text = "%s %s[%s] %s: %s" % (r["id"], tag, r["group"], short_model(r["model"], 60), r["why"])
        out.append(("- " + text) if markdown else ("  " + text))
    return out


def report(results: List[Dict[str, Any]], summary: Dict[str, Any], checks: List[Dict[str, Any]],
           markdown: bool) -> str:
    lines: List[str] = []
    for group, title in (("headline", "Headline rows"), ("legacy", "Legacy rows (vLLM V0 engine)")):
        rows = [r for r in results if r["group"] == group]
        if not rows:
            continue
        lines.append(("### %s" if markdown else "== %s") % title)
        lines.append("")
        lines += render_markdown_table(rows) if markdown else render_table(rows)
        lines.append("")
    lines.append("### Summary" if markdown else "== Summary")
    lines.append("")
    lines += summary_lines(summary, markdown)
    lines.append("")
    nr = not_reproduced_lines(results, markdown)
    if nr:
        lines.append("### Not reproduced" if markdown else "== Not reproduced (or only partly)")
        lines.append("")
        lines += nr
        lines.append("")
    if checks:
        lines.append("### Gate" if markdown else "== Gate")
        lines.append("")
        for c in checks:
            value = "none" if c["value"] is None else ("%.2f" % c["value"] if isinstance(c["value"], float)
                                                      else str(c["value"]))
            op = "<=" if c["upper"] else ">="
            text = "%s %s: %s (limit %s %s)" % ("PASS" if c["passed"] else "FAIL", c["check"], value, op,
                                             c["limit"])
            lines.append(("- " + text) if markdown else ("  " + text))
        lines.append("")
    return "\n".join(lines)


def list_catalogue(binary: str, what: str, timeout: float) -> List[Dict[str, Any]]:
    rc, out, err = run_binary([binary, what, "--format", "json"], timeout)
    if rc != 0:
        raise SystemExit("validate_engines: `preflight %s --format json` failed (exit %s): %s"
                         % (what, rc, first_line(err)))
    try:
        data = json.loads(out)
    except ValueError as e:
        raise SystemExit("validate_engines: `preflight %s --format json` is not JSON: %s" % (what, e))
    if isinstance(data, dict):
        for key in ("gpus", "models", "accelerators", "items"):
            if isinstance(data.get(key), list):
                return data[key]
    return data if isinstance(data, list) else []


def read_csv(path: Path) -> List[Dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise SystemExit("validate_engines: %s lacks columns: %s" % (path, ", ".join(missing)))
        return [dict((k, (v or "")) for k, v in row.items() if k is not None) for row in reader]


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Run preflight's engine sizing over a truth CSV and compare with logged figures.",
        epilog="Exit codes: 0 ok, 1 a gate failed, 2 usage/input error (a missing CSV included).")
    p.add_argument("--csv", type=Path, default=DEFAULT_CSV, help="truth CSV (default: %(default)s)")
    p.add_argument("--binary", default=str(DEFAULT_BINARY), help="preflight binary (default: %(default)s)")
    p.add_argument("--models-dir", type=Path, default=None,
                   help="model folders <org>__<name> (default: models/ beside the CSV or beside its folder, "
                        "else %s)" % DEFAULT_MODELS)
    p.add_argument("--prefer-catalogue", action="store_true",
                   help="resolve models in the binary's catalogue before the model folders")
    p.add_argument("--withhold-version", action="store_true",
                   help="plan every row as if its log named no version: measures how often the printed "
                        "engine.range holds the logged KV tokens (errors are then against the default release)")
    p.add_argument("--rows", default="", help="comma-separated row ids to run (default: all)")
    p.add_argument("--json", dest="json_out", type=Path, help="write rows, summary and gate as JSON")
    p.add_argument("--markdown", action="store_true", help="print markdown (for an issue note)")
    p.add_argument("--max-weights-mae", type=float, help="gate: headline weights MAE %% at most this")
    p.add_argument("--max-kv-mae", type=float, help="gate: headline KV tokens MAE %% at most this")
    p.add_argument("--min-in-range-pct", type=float,
                   help="gate: at least this %% of the rows planned without a version hold the logged KV tokens "
                        "inside the printed engine.range")
    p.add_argument("--min-reproduced", type=int, help="gate: at least this many headline rows reproduced")
    p.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1), help="plans run at once")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per plan (default %(default)s)")
    return p.parse_args(argv)


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    if not args.csv.is_file():
        msg = "validate_engines: truth CSV not found: %s" % args.csv
        print(msg, file=sys.stderr)
        return 2
    binary = args.binary
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        print("validate_engines: preflight binary not found or not executable: %s" % binary, file=sys.stderr)
        return 2
    models_dir = args.models_dir
    if models_dir is None:
        # tests/data/reference/data/x.csv -> tests/data/reference/models; a CSV with its own models/ folder beside it.
        here = args.csv.resolve().parent
        models_dir = next((d for d in (here / "models", here.parent / "models") if d.is_dir()),
                          DEFAULT_MODELS)
    rows = read_csv(args.csv)
    if args.rows:
        wanted = {x.strip() for x in args.rows.split(",") if x.strip()}
        rows = [r for r in rows if r.get("id") in wanted]
    try:
        gpus = list_catalogue(binary, "gpus", args.timeout)
        models = list_catalogue(binary, "models", args.timeout)
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    plans = [build_plan(r, binary, models_dir, gpus, models, args.prefer_catalogue, args.withhold_version) for r in rows]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda pl: evaluate(pl, args.timeout), plans))
    summary = {"headline": summarize(results, "headline"), "legacy": summarize(results, "legacy")}
    checks = gate(summary, args)
    passed = all(c["passed"] for c in checks)
    print(report(results, summary, checks, args.markdown))
    if args.json_out:
        doc = {
            "csv": str(args.csv), "binary": binary, "models_dir": str(models_dir),
            "rows": results, "summary": summary,
            "not_reproduced": [{"id": r["id"], "group": r["group"], "why": r["why"]}
                               for r in results if not r["reproduced"]],
            "gate": {"passed": passed, "checks": checks},
        }
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
