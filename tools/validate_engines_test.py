#!/usr/bin/env python3
"""Unit tests of tools/validate_engines.py: cell parsers, GPU / quant / version / model
mapping on cell values taken from tests/data/reference/data/engine-truth-dev.csv, and an end-to-end run
against tests/validation/fake_preflight.py (a stand-in binary with toy engine figures).

Run: python3 tools/validate_engines_test.py  (ctest: engine_validation_unit).
Optional: PREFLIGHT_BINARY=build/preflight also resolves the real CSV's GPU cells against
the real binary's catalogue; the real CSV is read from tests/data/reference.
"""
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import validate_engines as ve  # noqa: E402

REPO = HERE.parent
FIXTURES = REPO / "tests" / "validation"
FAKE = FIXTURES / "fake_preflight.py"
SAMPLE_CSV = FIXTURES / "sample-truth.csv"
REAL_CSV = Path(os.environ.get("VALIDATE_ENGINES_CSV", str(ve.DEFAULT_CSV)))
REAL_MODELS = ve.DEFAULT_MODELS


def load_fixture(name):
    with open(FIXTURES / name, encoding="utf-8") as f:
        return json.load(f)


GPUS = load_fixture("gpus.json")
MODELS = load_fixture("models.json")


class NumberCells(unittest.TestCase):
    def test_leading_number_on_real_cells(self):
        cases = {
            "8 (inferred)": 8,
            "107824 (per-rank values 107,312-107,824 logged)": 107824,
            "14.9888 (log says GB; GiB units)": 14.9888,
            "31232 (=1952 blocks x16; derived)": 31232,
            "8112 (=507 blocks x16; derived)": 8112,
            "58.97 (INFERRED = 71.29-7.48-3.58-1.26; value truncated in source)": 58.97,
            "43.67 (KV size incl. indexer)": 43.67,
            "3.27-3.29": 3.27,
            "8192 (model default; inferred)": 8192,
            "16384 (model default)": 16384,
            "-1.44": -1.44,
            "0.95": 0.95,
            "1,462,784": 1462784,
            "": None,
            "   ": None,
            "unknown": None,
        }
        for cell, want in cases.items():
            with self.subTest(cell=cell):
                self.assertEqual(ve.leading_number(cell), want)

    def test_keyed_cells(self):
        self.assertEqual(ve.leading_number("page_size 64 (DSA default)"), 64)
        self.assertEqual(ve.leading_number("page_size 64"), 64)
        self.assertEqual(ve.leading_number("mem_fraction_static=0.8 (hardcoded on main per PR)"), 0.8)
        self.assertIsNone(ve.leading_number("mem_fraction_static: not stated (main hardcoded 0.8 for DSA)"))

    def test_block_size_cells(self):
        cases = {
            "16 (tokens/num_gpu_blocks)": 16,
            "16 (tokens/blocks)": 16,
            "16 (default)": 16,
            "16 (default; hybrid SWA groups: tokens = num_blocks // num_groups * 16)": 16,
            "128": 128,
            "page_size 64 (DSA default)": 64,
            "": None,
        }
        for cell, want in cases.items():
            with self.subTest(cell=cell):
                self.assertEqual(ve.leading_int(cell), want)

    def test_leading_int_rejects_fractions(self):
        self.assertIsNone(ve.leading_int("0.95"))
        self.assertEqual(ve.leading_int("8 (inferred)"), 8)

    def test_per_stage_values(self):
        self.assertEqual(ve.number_list("1.1;2.01"), [1.1, 2.01])
        self.assertEqual(ve.number_list("1.05;1.1;2.01"), [1.05, 1.1, 2.01])
        self.assertEqual(ve.logged_max("3.28;4.26;4.26"), 4.26)
        self.assertEqual(ve.logged_max("7.51"), 7.51)
        self.assertIsNone(ve.logged_max(""))


class Versions(unittest.TestCase):
    def test_real_version_cells(self):
        cases = {
            "0.19.0": (0, 19, 0),
            "0.11.0 (pod image vllm/vllm-openai:v0.11.0 per doc)": (0, 11, 0),
            "~0.6.4 (V0; inferred from log format, 2024-12)": (0, 6, 4),
            "~0.6.4 (V0; inferred)": (0, 6, 4),
            "nightly ~0.11.1 (2025-11)": (0, 11, 1),
            "dev ~0.6.5 (PR #10511, 2024-12)": (0, 6, 5),
            "~0.11 (inferred, 2025-10)": (0, 11, 0),
            "~0.8.3 (V1, 2025-04)": (0, 8, 3),
            "~0.4.3 (V0, 2024-06)": (0, 4, 3),
            "0.10.1.1": (0, 10, 1),
            "main (PR #11309, 2025-10)": None,
            "main before PR #11309 (2025-10)": None,
            "": None,
        }
        for cell, want in cases.items():
            with self.subTest(cell=cell):
                self.assertEqual(ve.parse_version(cell), want)

    def test_version_text(self):
        self.assertEqual(ve.version_text((0, 11, 0)), "0.11.0")
        self.assertIsNone(ve.version_text(None))

    def test_main_branch_rows_map_to_releases(self):
        # r100 / r101: SGLang main around PR #11309 (first released in 0.5.3.post1; main was at 0.5.3 before it).
        self.assertEqual(ve.main_branch_release("sglang", "main before PR #11309 (2025-10)"), "0.5.3")
        self.assertEqual(ve.main_branch_release("sglang", "main (PR #11309, 2025-10)"), "0.5.3.post1")
        self.assertIsNone(ve.main_branch_release("sglang", "main (PR #1, 2025-10)"))   # no known release
        self.assertIsNone(ve.main_branch_release("vllm", "main (PR #11309, 2025-10)"))  # another engine's PR
        self.assertIsNone(ve.main_branch_release("sglang", "K3-capable build (not stated)"))

    def test_legacy_group(self):
        def legacy(engine, cell):
            return ve.is_legacy(engine, cell, ve.parse_version(cell))
        self.assertTrue(legacy("vllm", "~0.6.4 (V0; inferred)"))
        self.assertTrue(legacy("vllm", "dev ~0.6.5 (PR #10511, 2024-12)"))
        self.assertTrue(legacy("vllm", "~0.4.3 (V0, 2024-06)"))
        self.assertFalse(legacy("vllm", "~0.8.3 (V1, 2025-04)"))
        self.assertFalse(legacy("vllm", "0.19.0"))
        self.assertFalse(legacy("vllm", "0.10.1.1"))
        self.assertFalse(legacy("sglang", "main (PR #11309, 2025-10)"))
        self.assertFalse(legacy("sglang", "0.4.0"))  # SGLang has no V0 engine


class Quantization(unittest.TestCase):
    def test_real_quant_cells(self):
        cases = {
            "none": ("none", None),
            "compressed-tensors fp8-dynamic": ("online", "fp8-dynamic"),
            "compressed-tensors w8a8 (int8)": ("online", "w8a8"),
            "gptq_marlin w4a16": ("online", "w4a16"),
            "fp8 (online dynamic)": ("online", "fp8"),
            "mxfp4": ("native", None),
            "fp8 (block)": ("native", None),
            "int4 (compressed-tensors W4A16, native QAT)": ("native", None),
            "int4 (compressed-tensors W4A16)": ("native", None),
            "": ("none", None),
        }
        for cell, (kind, flag) in cases.items():
            with self.subTest(cell=cell):
                m = ve.map_quant(cell)
                self.assertEqual((m.kind, m.flag), (kind, flag))

    def test_quantization_config_detection(self):
        self.assertTrue(ve.config_has_quantization({"quantization_config": {"quant_method": "mxfp4"}}))
        self.assertTrue(ve.config_has_quantization({"text_config": {"quantization_config": {"x": 1}}}))
        self.assertFalse(ve.config_has_quantization({"torch_dtype": "bfloat16"}))


class KvDtypeAndOther(unittest.TestCase):
    def test_real_kv_dtype_cells(self):
        self.assertIsNone(ve.map_kv_dtype("auto"))
        self.assertIsNone(ve.map_kv_dtype("auto (bf16)"))
        self.assertIsNone(ve.map_kv_dtype(""))
        self.assertEqual(ve.map_kv_dtype("fp8"), "fp8")
        self.assertEqual(ve.map_kv_dtype("fp8_e4m3 (inferred: 48,075 B/token = 61x(656+132))"), "fp8")
        self.assertEqual(ve.map_kv_dtype("fp8_e5m2"), "fp8")
        with self.assertRaises(ve.Unsupported):
            ve.map_kv_dtype("nvfp4")

    def test_dtype_in_other(self):
        self.assertEqual(ve.parse_other("dtype=bfloat16 | total_gpu_memory=79.19GiB").get("dtype"), "bfloat16")
        self.assertEqual(ve.parse_other("dtype=float32 | total_gpu_memory=79.19GiB").get("dtype"), "float32")
        self.assertEqual(ve.parse_other("# GPU blocks: 507, # CPU blocks: 1024 (distributed_gpu_executor.py); "
                                        "dtype float16; inferred: util/mml/block defaults").get("dtype"), "float16")
        self.assertIsNone(ve.parse_other("kv_dtype=fp8 | --kv-cache-dtype fp8").get("dtype"))
        self.assertIsNone(ve.parse_other("LMCache test setup; GPU/util not stated in excerpt").get("dtype"))

    def test_engine_flags_in_other(self):
        other = ve.parse_other('--decode-context-parallel-size 8: "Multiplying the GPU KV cache size by the '
                               'dcp_world_size 8." (715,072 x 8 = 5,720,576 ~ 5,721,088)')
        self.assertEqual(other["flags"], ["--dcp", "8"])
        self.assertEqual(ve.parse_other("vllm serve --enable-prefix-caching False")["flags"], [])
        self.assertTrue(ve.parse_other("--enable-dp-attention; Memory pool end.")["dp_attention"])
        self.assertEqual(ve.parse_other("--max-num-batched-tokens 2048 --enforce-eager")["flags"],
                         ["--max-num-batched-tokens", "2048", "--enforce-eager"])

    def test_sglang_radix_cache_and_state_dtype_in_other(self):
        # The r120 cell's wording, SGLang's flag, and the lazy strategy.
        self.assertEqual(ve.parse_other("max_running_requests=370 with the radix cache disabled (one state slot "
                                        "per request)")["flags"], ["--radix-cache", "off"])
        self.assertEqual(ve.parse_other("--disable-radix-cache --mamba-ssm-dtype bfloat16")["flags"],
                         ["--state-dtype", "bf16", "--radix-cache", "off"])
        self.assertEqual(ve.parse_other("--mamba-radix-cache-strategy extra_buffer_lazy")["flags"],
                         ["--radix-cache", "lazy"])
        self.assertEqual(ve.parse_other("radix cache on; mamba_full_memory_ratio default 0.9")["flags"], [])

    def test_sglang_dp_attention_layout(self):
        row = {"tp": "8", "pp": "1", "dp": "8", "ep": ""}
        lay, notes = ve.layout_of(row, "sglang", 8, {"dp_attention": False})
        self.assertEqual((lay["tp"], lay["dp"], lay["ep"]), (1, 8, None))
        self.assertTrue(notes)
        lay, _ = ve.layout_of(row, "vllm", 64, {"dp_attention": False})
        self.assertEqual((lay["tp"], lay["dp"]), (8, 8))
        lay, _ = ve.layout_of({"tp": "8 (inferred)", "pp": "1", "dp": "1", "ep": "1"}, "vllm", 8, {})
        self.assertEqual(lay, {"tp": 8, "pp": 1, "dp": 1, "ep": 1})


class EngineJson(unittest.TestCase):
    def test_engine_figures(self):
        self.assertIsNone(ve.engine_figures({"verdict": {"fits": True}}))
        self.assertIsNone(ve.engine_figures({"engine": {"name": "vLLM"}}))
        e = ve.engine_figures({"engine": {"weights_bytes_per_rank": [3, 9, 4], "kv_cache_tokens": 1000,
                                          "max_concurrency": 1.5}})
        self.assertEqual((e["weights_bytes_per_rank"], e["kv_cache_tokens"], e["max_concurrency"]),
                         (9.0, 1000.0, 1.5))
        e = ve.engine_figures({"engine": {"workers": [{"rank": 0, "weights_bytes": 5},
                                                      {"rank": 1, "weights_bytes": 7}],
                                          "kv_cache_tokens": 10, "max_running_requests": 4}})
        self.assertEqual((e["weights_bytes_per_rank"], e["max_running_requests"]), (7.0, 4.0))
        self.assertEqual(len(e["workers"]), 2)

    def test_pct_error(self):
        self.assertAlmostEqual(ve.pct_error(11.0, 10.0), 10.0)
        self.assertIsNone(ve.pct_error(None, 10.0))
        self.assertIsNone(ve.pct_error(1.0, 0.0))


class Gpus(unittest.TestCase):
    def test_parse_gpu_cells(self):
        g = ve.parse_gpu_cell("H100-80GB (SXM, 79.19 GiB)")
        self.assertEqual((g.family, g.size_gb, g.form_factor), (["h100"], 80.0, "sxm"))
        g = ve.parse_gpu_cell("Tesla T4 16GB")
        self.assertEqual((g.family, g.size_gb), (["t4"], 16.0))
        g = ve.parse_gpu_cell("RTX 3090 (23.58 GiB)")
        self.assertEqual((g.family, g.size_gb), (["rtx", "3090"], None))

    def test_real_gpu_cells_against_catalogue_snapshot(self):
        cases = {
            "H100-80GB (SXM, 79.19 GiB)": "nvidia-h100-sxm-80gb",
            "H100-80GB": "nvidia-h100-sxm-80gb",
            "H100-80GB (79.18 GiB)": "nvidia-h100-sxm-80gb",
            "H100-80GB (79.22 GiB)": "nvidia-h100-sxm-80gb",
            "A100-80GB": "nvidia-a100-80gb-sxm",
            "A100-80GB (inferred from numbers)": "nvidia-a100-80gb-sxm",
            "A100-40GB": "nvidia-a100-40gb-sxm",
            "H200-141GB": "nvidia-h200-sxm-141gb",
            "B200": "nvidia-b200-hgx",
            "RTX 4090": "nvidia-rtx-4090",
            "H100 PCIe 80GB": "nvidia-h100-pcie-80gb",
            # Other spellings a truth row may use (nvidia-smi names, spaced sizes):
            "NVIDIA H100 80GB HBM3": "nvidia-h100-sxm-80gb",
            "NVIDIA A100-SXM4-80GB": "nvidia-a100-80gb-sxm",
            "H100 SXM5 80 GB": "nvidia-h100-sxm-80gb",
            "H100 NVL": "nvidia-h100-nvl-94gb",
            "NVIDIA GeForce RTX 4090": "nvidia-rtx-4090",
            "AMD Instinct MI300X": "amd-mi300x",
            "GH200 (96 GB)": "nvidia-gh200-96gb",
            # Not in this catalogue snapshot:
            "MI308X": None,
            "RTX 3090 (23.58 GiB)": None,
            "Tesla T4 16GB": None,
            "unknown single GPU": None,
            "": None,
        }
        for cell, want in cases.items():
            with self.subTest(cell=cell):
                self.assertEqual(ve.resolve_gpu(cell, GPUS), want)

    def test_cells_resolve_once_the_catalogue_lists_them(self):
        extra = GPUS + [
            {"id": "nvidia-rtx-3090", "aliases": ["rtx3090", "3090"], "nominal_gb": 24},
            {"id": "nvidia-t4", "aliases": ["t4"], "nominal_gb": 16},
            {"id": "amd-mi308x", "aliases": ["mi308x"], "nominal_gb": 192},
        ]
        self.assertEqual(ve.resolve_gpu("RTX 3090 (23.58 GiB)", extra), "nvidia-rtx-3090")
        self.assertEqual(ve.resolve_gpu("Tesla T4 16GB", extra), "nvidia-t4")
        self.assertEqual(ve.resolve_gpu("MI308X", extra), "amd-mi308x")

    def test_size_mismatch_is_rejected(self):
        # "a100" is the 80 GB part's alias; a 40 GB cell must not land on it, nor 16 GB on 24 GB.
        self.assertEqual(ve.resolve_gpu("A100 40GB", GPUS), "nvidia-a100-40gb-sxm")
        self.assertIsNone(ve.resolve_gpu("L4 16GB", GPUS))

    def test_real_csv_gpu_cells_against_real_catalogue(self):
        binary = os.environ.get("PREFLIGHT_BINARY") or str(ve.DEFAULT_BINARY)  # ctest sets it
        self.assertTrue(os.access(binary, os.X_OK), "no preflight binary at %s (set PREFLIGHT_BINARY)" % binary)
        gpus = ve.list_catalogue(binary, "gpus", 60)
        expected_family = {"H100": "h100", "A100-80": "a100-80", "A100-40": "a100-40", "H200": "h200",
                           "B200": "b200", "RTX 3090": "3090", "T4": "t4", "MI308": "mi308"}
        for cell in ["H100-80GB (SXM, 79.19 GiB)", "A100-80GB", "A100-40GB", "H200-141GB", "B200",
                     "RTX 3090 (23.58 GiB)", "Tesla T4 16GB", "MI308X"]:
            gid = ve.resolve_gpu(cell, gpus)
            key = next(v for k, v in expected_family.items() if k in cell)
            with self.subTest(cell=cell, id=gid):
                if gid is not None:
                    self.assertIn(key, gid)
                else:
                    self.assertNotIn(key, ("h100", "a100-80", "a100-40", "h200", "b200"))


class Models(unittest.TestCase):
    def test_catalogue_match_is_case_insensitive(self):
        self.assertEqual(ve.find_catalogue_model("RedHatAI/Llama-3.3-70B-Instruct-fp8-dynamic", MODELS),
                         "llama-3.3-70b-instruct-fp8-dynamic")
        self.assertEqual(ve.find_catalogue_model("redhatai/Llama-3.3-70B-Instruct-quantized.w8a8", MODELS),
                         "llama-3.3-70b-instruct-w8a8")
        self.assertIsNone(ve.find_catalogue_model("moonshotai/Kimi-K2-Thinking", MODELS))

    def test_folder_and_config_choice(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            (root / "Org__Plain").mkdir()
            (root / "Org__Plain" / "config.json").write_text("{}")
            (root / "Org__Plain" / "config.sibling.base.json").write_text("{}")
            (root / "Org__Quant-FP8-dynamic").mkdir()
            (root / "Org__Quant-FP8-dynamic" / "config.base-sibling.org-Base.json").write_text(
                '{"model_type": "llama"}')
            (root / "Org__Quant-FP8-dynamic" / "notes.md").write_text("")
            (root / "Org__Two").mkdir()
            (root / "Org__Two" / "config.a.json").write_text("{}")
            (root / "Org__Two" / "config.b.json").write_text("{}")
            ref, _ = ve.resolve_model("org/plain", root, [])
            self.assertTrue(ref.arg.endswith("Org__Plain"))  # the folder, read as a snapshot
            ref, _ = ve.resolve_model("Org/Quant-fp8-dynamic", root, [])
            self.assertTrue(ref.arg.endswith("config.base-sibling.org-Base.json"))
            self.assertIs(ref.has_quantization_config, False)
            ref, why = ve.resolve_model("org/two", root, [])
            self.assertIsNone(ref)
            self.assertIn("no config for the model", why)
            self.assertIn("2 config*.json", why)
            ref, _ = ve.resolve_model("qwen/qwen3-14b", root, MODELS)
            self.assertEqual((ref.arg, ref.source), ("qwen3-14b", "catalogue:qwen3-14b"))

    def test_real_model_cells(self):
        self.assertTrue(REAL_MODELS.is_dir(), "no tests/data/reference/models")
        # Spelling differs from the folder in case ("fp8-dynamic" vs "FP8-dynamic").
        ref, _ = ve.resolve_model("RedHatAI/Llama-3.3-70B-Instruct-fp8-dynamic", REAL_MODELS, MODELS)
        self.assertIsNotNone(ref)
        self.assertTrue(ref.source.startswith("folder:RedHatAI__Llama-3.3-70B-Instruct-FP8-dynamic/"))
        self.assertIs(ref.has_quantization_config, False)
        ref, _ = ve.resolve_model("redhatai/Llama-3.3-70B-Instruct-quantized.w8a8", REAL_MODELS, MODELS)
        self.assertIsNotNone(ref)
        ref, _ = ve.resolve_model("openai/gpt-oss-20b", REAL_MODELS, MODELS)
        self.assertTrue(ref.arg.endswith("openai__gpt-oss-20b"))
        self.assertIs(ref.has_quantization_config, True)
        ref, why = ve.resolve_model("deepseek-ai/deepseek-coder-6.7b-instruct", REAL_MODELS, MODELS)
        self.assertIsNone(ref)
        self.assertIn("no config for the model", why)


class RealCsv(unittest.TestCase):
    """Every cell of the real CSV goes through the parsers without surprises."""

    def test_every_row_maps(self):
        self.assertTrue(REAL_CSV.is_file(), "no tests/data/reference/data/engine-truth-dev.csv")
        rows = ve.read_csv(REAL_CSV)
        self.assertGreater(len(rows), 0)
        for row in rows:
            with self.subTest(id=row["id"]):
                self.assertIn(row["engine"], ("vllm", "sglang"))
                for col in ("gpu_count", "max_model_len", "block_size", "tp", "pp", "dp", "ep"):
                    cell = row[col].strip()
                    if cell and cell[0].isdigit():
                        self.assertIsNotNone(ve.leading_int(cell), "%s=%r" % (col, cell))
                for col in ("reported_weights_gib", "reported_kv_tokens", "reported_max_concurrency"):
                    cell = row[col].strip()
                    if cell and cell[0].isdigit():
                        self.assertIsNotNone(ve.logged_max(cell), "%s=%r" % (col, cell))
                if row["engine"] == "vllm":
                    self.assertIsNotNone(ve.parse_version(row["version"]), row["version"])
                ve.map_quant(row["quant"])
                ve.map_kv_dtype(row["kv_dtype"])
                ve.parse_other(row["other"])


class EndToEnd(unittest.TestCase):
    """The harness against tests/validation/fake_preflight.py and sample-truth.csv."""

    def run_harness(self, *extra, env=None):
        with tempfile.TemporaryDirectory() as tmp:
            out_json = os.path.join(tmp, "out.json")
            log = os.path.join(tmp, "argv.log")
            old = dict(os.environ)
            os.environ.update(env or {})
            os.environ["FAKE_PREFLIGHT_LOG"] = log
            buf = io.StringIO()
            try:
                with redirect_stdout(buf):
                    rc = ve.main(["--binary", str(FAKE), "--csv", str(SAMPLE_CSV), "--json", out_json,
                                  "--jobs", "2"] + list(extra))
            finally:
                os.environ.clear()
                os.environ.update(old)
            with open(out_json, encoding="utf-8") as f:
                doc = json.load(f)
            calls = []
            if os.path.exists(log):
                with open(log, encoding="utf-8") as f:
                    calls = [json.loads(line) for line in f]
            return rc, buf.getvalue(), doc, calls

    def setUp(self):
        self.assertTrue(os.access(FAKE, os.X_OK), "%s is not executable" % FAKE)

    def test_rows_summary_and_reasons(self):
        rc, text, doc, _ = self.run_harness()
        self.assertEqual(rc, 0)
        rows = {r["id"]: r for r in doc["rows"]}
        self.assertTrue(rows["s01"]["reproduced"])
        self.assertAlmostEqual(rows["s01"]["error_pct"]["weights_gib"], 0.0, places=6)
        self.assertAlmostEqual(rows["s02"]["error_pct"]["weights_gib"], (5.0 - 5.5) / 5.5 * 100, places=6)
        self.assertEqual(rows["s03"]["group"], "legacy")
        self.assertIn("unknown GPU", rows["s04"]["why"])
        self.assertIn("no config for the model", rows["s05"]["why"])
        self.assertEqual(rows["s06"]["why"], "input error: preflight: --engine-version: no vllm rules for 9.9.9")
        self.assertEqual(rows["s07"]["why"], "no logged figure to compare")
        self.assertTrue(rows["s08"]["reproduced"])            # SGLang, DP attention, no version
        self.assertEqual(rows["s09"]["exit_code"], 1)          # does not fit, still compared
        self.assertTrue(rows["s09"]["reproduced"])
        self.assertIn("quant 'mxfp4'", rows["s10"]["why"])
        head = doc["summary"]["headline"]
        self.assertEqual(head["reproduced"], 5)                # s01 s02 s08 s09 s11
        self.assertEqual(head["weights_gib"]["n"], 4)
        self.assertAlmostEqual(head["weights_gib"]["mae_pct"], abs((5.0 - 5.5) / 5.5 * 100) / 4, places=6)
        self.assertEqual(head["kv_tokens"]["n"], 4)
        self.assertEqual(doc["summary"]["legacy"]["reproduced"], 1)
        self.assertIn("== Summary", text)
        self.assertIn("s07 [headline]", text)

    def test_commands(self):
        _, _, doc, calls = self.run_harness()
        by_id = {r["id"]: r["command"][1:] for r in doc["rows"]}
        s01 = by_id["s01"]
        self.assertEqual(s01[s01.index("--gpus") + 1], "1xnvidia-h100-sxm-80gb")
        self.assertEqual(s01[s01.index("--engine-version") + 1], "0.19.0")
        self.assertEqual(s01[s01.index("--gpu-memory-utilization") + 1], "0.95")
        self.assertEqual(s01[s01.index("--dtype") + 1], "bfloat16")
        self.assertEqual(s01[s01.index("--block-size") + 1], "16")
        self.assertEqual(by_id["s02"][by_id["s02"].index("--kv-dtype") + 1], "fp8")
        self.assertEqual(by_id["s03"][by_id["s03"].index("--engine-version") + 1], "0.6.4")
        s08 = by_id["s08"]
        self.assertNotIn("--engine-version", s08)
        self.assertNotIn("--mem-fraction-static", s08)
        self.assertNotIn("--quantize", s08)                    # fp8 (block) is in the config
        self.assertEqual(s08[s08.index("--tp") + 1], "1")
        self.assertEqual(s08[s08.index("--dp") + 1], "8")
        self.assertEqual(s08[s08.index("--block-size") + 1], "64")
        s11 = by_id["s11"]
        self.assertEqual(s11[s11.index("--quantize") + 1], "w8a8")
        self.assertTrue(s11[1].endswith("config.base-sibling.acme-Tiny-8B.json"))
        self.assertGreaterEqual(len(calls), 8)

    def test_engine_output_missing(self):
        rc, _, doc, _ = self.run_harness(env={"FAKE_PREFLIGHT_NO_ENGINE": "1"})
        self.assertEqual(rc, 0)
        rows = {r["id"]: r for r in doc["rows"]}
        self.assertIn("engine output missing", rows["s01"]["why"])
        self.assertEqual(doc["summary"]["headline"]["reproduced"], 0)

    def test_gate(self):
        rc, text, doc, _ = self.run_harness("--max-weights-mae", "5", "--max-kv-mae", "0.1",
                                            "--min-reproduced", "5")
        self.assertEqual(rc, 0, text)
        self.assertTrue(doc["gate"]["passed"])
        rc, text, doc, _ = self.run_harness("--max-weights-mae", "1")
        self.assertEqual(rc, 1)
        self.assertIn("FAIL weights MAE", text)
        rc, _, _, _ = self.run_harness("--min-reproduced", "6")
        self.assertEqual(rc, 1)
        rc, _, doc, _ = self.run_harness("--max-kv-mae", "3", env={"FAKE_PREFLIGHT_NO_ENGINE": "1"})
        self.assertEqual(rc, 1)                                # nothing compared fails a gate

    def test_markdown(self):
        _, text, _, _ = self.run_harness("--markdown")
        self.assertIn("| id | model | gpu |", text)
        self.assertIn("### Not reproduced", text)

    def test_missing_csv(self):
        buf = io.StringIO()
        with redirect_stderr(buf):
            rc = ve.main(["--binary", str(FAKE), "--csv", "/nonexistent/truth.csv"])
        self.assertEqual(rc, 2)  # an error, never a skip
        self.assertIn("not found", buf.getvalue())

    def test_command_line_entry_point(self):
        p = subprocess.run([sys.executable, str(HERE / "validate_engines.py"), "--binary", str(FAKE),
                            "--csv", str(SAMPLE_CSV), "--rows", "s01,s02", "--min-reproduced", "2"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("2 of 2 rows reproduced", p.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=1)
