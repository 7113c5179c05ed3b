#!/usr/bin/env python3
"""Reading models from the Hub, against a fake hub on loopback (ctest hub_fetch).

Usage: test_hub.py PATH/TO/preflight
Each fault of fake_hub.py gets one specific, one-line outcome and exit code,
never a wrong number; a pinned fetch gives the embedded entry's inventory and
the commit; the cache serves HF_HUB_OFFLINE=1 and says when something is missing.
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "api"))
from serve_fixture import Server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BINARY = None
COMMIT = "0123456789abcdef0123456789abcdef01234567"
REPO = "Qwen/Qwen3-0.6B"


class FakeHub:
    def __init__(self, tensors, repo=REPO, config=None, shards=3, fault="", delay=3.0, depth=100_000):
        config = config or os.path.join(ROOT, "data", "models", "qwen3-0.6b", "config.json")
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_hub.py"), "--repo", repo, "--config", config,
                                      "--tensors", tensors, "--shards", str(shards), "--fault", fault, "--delay", str(delay),
                                      "--depth", str(depth)],
                                     stdout=subprocess.PIPE, text=True)
        self.port = int(self.proc.stdout.readline().split()[-1])

    def close(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()


def run(args, cache, port, extra_env=None):
    env = dict(os.environ, XDG_CACHE_HOME=cache, HF_ENDPOINT=f"http://127.0.0.1:{port}", HOME=cache,
               PREFLIGHT_HUB_TIMEOUT_MS="2000", PREFLIGHT_HUB_ATTEMPTS="3")
    env.pop("HF_TOKEN", None)
    env.pop("HF_HUB_OFFLINE", None)
    env.update(extra_env or {})
    p = subprocess.run([BINARY, *args], capture_output=True, text=True, env=env, timeout=300)
    return p.returncode, p.stdout, p.stderr.strip()


def same_inventory(a, b):
    keys = ("modules", "bytes_by_dtype", "elements_by_dtype", "cache_per_token", "state_per_sequence")
    return all(a[k] == b[k] for k in keys) and a["model"]["checkpoint_bytes"] == b["model"]["checkpoint_bytes"]


class Hub(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="preflight-hub-")
        cls.tensors = os.path.join(cls.tmp, "qwen-tensors.json")
        with open(cls.tensors, "w") as f:
            f.write(subprocess.run([BINARY, "inspect", "qwen3-0.6b", "--tensors", "--format", "json"], capture_output=True,
                                   text=True, check=True).stdout)
        cls.embedded = json.loads(subprocess.run([BINARY, "inspect", "qwen3-0.6b", "--format", "json"], capture_output=True,
                                                 text=True, check=True).stdout)

    def cache(self):
        return tempfile.mkdtemp(dir=self.tmp)

    def fetch(self, fault="", args=("inspect", f"{REPO}@{COMMIT}", "--format", "json"), extra_env=None, cache=None, **kw):
        hub = FakeHub(self.tensors, fault=fault, **kw)
        try:
            return run(list(args), cache or self.cache(), hub.port, extra_env)
        finally:
            hub.close()

    def test_pinned_commit_gives_the_embedded_inventory(self):
        code, out, err = self.fetch()
        self.assertEqual(code, 0, err)
        got = json.loads(out)
        self.assertEqual(got["model"]["revision"], COMMIT)
        self.assertTrue(got["reconciliation"]["exact"])
        self.assertTrue(same_inventory(got, self.embedded))

    def test_branch_resolves_to_its_commit_in_every_report(self):
        code, out, err = self.fetch(args=("plan", f"{REPO}@main", "--gpus", "1xH100", "--format", "json"))
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["model"]["revision"], COMMIT)

    def test_offline_reads_the_cache_alone_and_says_what_is_missing(self):
        cache = self.cache()
        self.assertEqual(self.fetch(cache=cache, args=("inspect", f"{REPO}@main"))[0], 0)
        # No hub at all now: the port of a stopped server.
        code, out, err = run(["inspect", f"{REPO}@main", "--format", "json"], cache, 9, {"HF_HUB_OFFLINE": "1"})
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["model"]["revision"], COMMIT)
        code, _, err = run(["inspect", "Qwen/Other@main"], cache, 9, {"HF_HUB_OFFLINE": "1"})
        self.assertEqual(code, 2)
        self.assertIn("HF_HUB_OFFLINE is set and the cache", err)
        self.assertEqual(err.count("\n"), 0)

    def test_no_cache_writes_nothing(self):
        cache = self.cache()
        code, _, err = self.fetch(cache=cache, args=("inspect", f"{REPO}@{COMMIT}", "--no-cache"))
        self.assertEqual(code, 0, err)
        self.assertFalse(os.path.exists(os.path.join(cache, "preflight")))

    def test_faults(self):
        # Every fault, with every header read (auto on a small model) and with the index and lengths.
        cases = [
            ("401", "is gated or private (HTTP 401): accept its terms on the Hub, then set HF_TOKEN"),
            ("404", "no such model or revision on http://127.0.0.1"),
            ("truncated", "the header request returned"),
            ("truncated8", "the first range request returned 4 of 8 bytes (truncated)"),
            ("lying", "runs past the file's"),  # 64 shards: each under safetensors' 100 MB header cap
            ("drop", "failed after 3 attempt(s)"),
            ("slow", "failed after 3 attempt(s): Timeout was reached"),
            ("mistral", "no config.json: this repository is in Mistral's native format (params.json)"),
            ("gguf", "no config.json: a GGUF repository (1 .gguf file(s))"),
        ]
        for mode in ("auto", "lengths"):
            for fault, message in cases:
                if mode == "lengths" and fault == "truncated":
                    continue  # no whole header is read when every shard's bytes agree: see below
                with self.subTest(fault=fault, mode=mode):
                    code, out, err = self.fetch(fault=fault, shards=64 if fault == "lying" else 3,
                                                args=("inspect", f"{REPO}@{COMMIT}", "--format", "json",
                                                      "--shard-headers", mode))
                    self.assertEqual(code, 2, err)
                    self.assertIn(message, err)
                    self.assertEqual(err.count("\n"), 0, err)
                    self.assertEqual(out, "")  # never a number
        # A truncated header body cannot mislead the lengths mode: it never asks for one here.
        code, out, err = self.fetch(fault="truncated", args=("inspect", f"{REPO}@{COMMIT}", "--format", "json",
                                                             "--shard-headers", "lengths"))
        self.assertEqual(code, 0, err)
        got = json.loads(out)
        self.assertTrue(got["reconciliation"]["exact"])
        self.assertEqual(got["hub_fetch"]["shard_headers_read"], 0)

    def test_hostile_endpoints_and_settings(self):
        # libcurl speaks file://, so neither HF_ENDPOINT nor a redirect may take it there;
        # the transfer limits are checked by name; a dead endpoint fails within a bounded time.
        one_line = lambda err: self.assertEqual(err.count("\n"), 0, err)
        code, out, err = run(["inspect", f"{REPO}@{COMMIT}"], self.cache(), 1, {"HF_ENDPOINT": "file:///etc"})
        self.assertEqual((code, out), (2, ""), err)
        self.assertIn("HF_ENDPOINT: expected an http:// or https:// URL, got 'file:///etc'", err)
        one_line(err)
        for name, value, message in [
            ("PREFLIGHT_HUB_ATTEMPTS", "100", "PREFLIGHT_HUB_ATTEMPTS: expected a whole number from 1 to 10, got '100'"),
            ("PREFLIGHT_HUB_ATTEMPTS", "abc", "PREFLIGHT_HUB_ATTEMPTS: expected a whole number from 1 to 10, got 'abc'"),
            ("PREFLIGHT_HUB_ATTEMPTS", "0", "PREFLIGHT_HUB_ATTEMPTS: expected a whole number from 1 to 10, got '0'"),
            ("PREFLIGHT_HUB_TIMEOUT_MS", "-1", "PREFLIGHT_HUB_TIMEOUT_MS: expected a whole number from 1 to 600000, got '-1'"),
            ("PREFLIGHT_HUB_CONCURRENCY", "abc", "PREFLIGHT_HUB_CONCURRENCY: expected a whole number from 1 to 64"),
            ("PREFLIGHT_HUB_TOTAL_S", "0", "PREFLIGHT_HUB_TOTAL_S: expected a whole number from 1 to 3600, got '0'"),
        ]:
            with self.subTest(name=name, value=value):
                code, out, err = run(["inspect", f"{REPO}@{COMMIT}"], self.cache(), 1, {name: value})
                self.assertEqual((code, out), (2, ""), err)
                self.assertIn(message, err)
                one_line(err)
        # A dead endpoint (nothing listens on port 1) with the most attempts allowed, then a total time limit.
        start = time.monotonic()
        code, _, err = run(["inspect", f"{REPO}@{COMMIT}"], self.cache(), 1, {"PREFLIGHT_HUB_ATTEMPTS": "3"})
        self.assertEqual(code, 2, err)
        self.assertIn("failed after 3 attempt(s)", err)
        self.assertLess(time.monotonic() - start, 10)
        start = time.monotonic()
        code, _, err = run(["inspect", f"{REPO}@{COMMIT}"], self.cache(), 1,
                           {"PREFLIGHT_HUB_ATTEMPTS": "10", "PREFLIGHT_HUB_TOTAL_S": "2"})
        self.assertEqual(code, 2, err)
        self.assertIn("out of time: 2 s for the whole read (PREFLIGHT_HUB_TOTAL_S)", err)
        self.assertLess(time.monotonic() - start, 6)
        # A shard redirected to file:///etc/passwd: refused by protocol, never read.
        code, out, err = self.fetch(fault="redirect_file", args=("inspect", f"{REPO}@{COMMIT}", "--shard-headers", "all"))
        self.assertEqual((code, out), (2, ""), err)
        self.assertIn("Unsupported protocol", err)
        self.assertNotIn("root:", err)
        one_line(err)

    def test_deeply_nested_listing_is_one_line(self):
        for depth in (100_000, 1_000_000):
            with self.subTest(depth=depth):
                code, out, err = self.fetch(fault="deep_listing", depth=depth)
                self.assertEqual((code, out), (2, ""), err)
                self.assertIn("nested deeper than 512 levels", err)
                self.assertEqual(err.count("\n"), 0, err)

    def test_hub_and_local_snapshot_plan_the_same_files(self):
        # Files that contradict their config (shard 2's first tensor stored as F32) are
        # planned from the files, the same bytes whether read from the Hub (every header, or the
        # index and each shard's length) or from a local snapshot of the same files.
        snapshot = os.path.join(self.cache(), "snapshot")
        config = os.path.join(ROOT, "data", "models", "qwen3-0.6b", "config.json")
        subprocess.run([sys.executable, os.path.join(HERE, "fake_hub.py"), "--repo", REPO, "--config", config,
                        "--tensors", self.tensors, "--shards", "3", "--fault", "altered", "--write-snapshot", snapshot],
                       check=True)
        args = ["--gpus", "2xH100", "--context", "8192", "--engine", "vllm", "--format", "json"]
        local = subprocess.run([BINARY, "plan", snapshot, *args], capture_output=True, text=True)
        self.assertIn(local.returncode, (0, 1), local.stderr)
        local = json.loads(local.stdout)
        self.assertEqual(local["model"]["manifest_source"], "headers")
        self.assertIn("the files and config.json disagree", local["model"]["files_disagree"])
        # On disk the F32 tensor is 2 MiB larger; vLLM casts it into its BF16 parameter on load.
        self.assertEqual(local["model"]["checkpoint_bytes"], self.embedded["model"]["checkpoint_bytes"] + 2 * 1024 * 1024)
        self.assertEqual(local["model"]["loaded_weight_bytes"], self.embedded["model"]["checkpoint_bytes"])
        weights = lambda plan: [[(r["id"], r["bytes"]) for r in rank["rows"] if r["resource"] == "weights"]
                                for rank in plan["ranks"]]
        for mode, source in (("all", "headers"), ("lengths", "index_and_sizes")):
            with self.subTest(mode=mode):
                code, out, err = self.fetch(fault="altered", args=("plan", f"{REPO}@{COMMIT}", *args, "--shard-headers", mode))
                self.assertIn(code, (0, 1), err)
                hub = json.loads(out)
                self.assertEqual(hub["model"]["manifest_source"], source)
                self.assertEqual(hub["model"]["checkpoint_bytes"], local["model"]["checkpoint_bytes"])
                self.assertEqual(hub["model"]["loaded_weight_bytes"], local["model"]["loaded_weight_bytes"])
                self.assertEqual(weights(hub), weights(local))
                self.assertEqual(hub["engine"]["kv_cache_tokens"], local["engine"]["kv_cache_tokens"])

    def test_shard_header_modes_agree_on_a_small_model(self):
        results = {}
        for mode in ("auto", "all", "lengths"):
            code, out, err = self.fetch(args=("inspect", f"{REPO}@{COMMIT}", "--format", "json", "--shard-headers", mode))
            self.assertEqual(code, 0, err)
            results[mode] = json.loads(out)
            self.assertTrue(same_inventory(results[mode], self.embedded))
            self.assertTrue(results[mode]["reconciliation"]["exact"])
            self.assertTrue(results[mode]["reconciliation"]["adds_up"])
        self.assertEqual(results["auto"]["hub_fetch"]["shard_headers"], "all")  # about 30 KB of headers: under 2 MB
        self.assertEqual(results["lengths"]["reconciliation"]["method"], "index_and_shard_sizes")
        self.assertEqual(results["lengths"]["reconciliation"]["shards_verified_by_size"], 3)
        self.assertEqual(results["lengths"]["reconciliation"]["real_bytes"], results["all"]["reconciliation"]["real_bytes"])
        self.assertEqual(results["lengths"]["reconciliation"]["header_bytes"], results["all"]["reconciliation"]["header_bytes"])
        code, _, err = self.fetch(args=("inspect", f"{REPO}@{COMMIT}", "--shard-headers", "some"))
        self.assertEqual(code, 2)
        self.assertIn("--shard-headers", err)

    def test_files_the_index_does_not_name_are_not_counted_twice(self):
        for mode in ("all", "lengths"):
            with self.subTest(mode=mode):
                code, out, err = self.fetch(fault="consolidated", args=("inspect", f"{REPO}@{COMMIT}", "--format", "json",
                                                                        "--shard-headers", mode))
                self.assertEqual(code, 0, err)
                got = json.loads(out)
                self.assertTrue(got["reconciliation"]["exact"])
                self.assertEqual(got["reconciliation"]["shards"], 3)
                self.assertTrue(any(n.startswith("not read: consolidated.safetensors") for n in got["notes"]), got["notes"])

    def test_offline_lengths_from_the_cache(self):
        cache = self.cache()
        args = ("inspect", f"{REPO}@{COMMIT}", "--format", "json", "--shard-headers", "lengths")
        code, online, err = self.fetch(cache=cache, args=args)
        self.assertEqual(code, 0, err)
        code, offline, err = self.fetch(cache=cache, args=args, extra_env={"HF_HUB_OFFLINE": "1"})
        self.assertEqual(code, 0, err)
        offline = json.loads(offline)
        self.assertEqual(offline["hub_fetch"]["requests"], 0)
        self.assertEqual(offline["reconciliation"], json.loads(online)["reconciliation"])

    def test_launch_of_a_hub_model_pins_the_commit_it_planned(self):
        for engine in ("vllm", "sglang"):
            with self.subTest(engine=engine):
                code, out, err = self.fetch(args=("launch", f"{REPO}@main", "--gpus", "1xH100", "--engine", engine,
                                                  "--context", "8K"))
                self.assertEqual(code, 0, err)
                self.assertIn(f"--revision {COMMIT}", out)
                self.assertIn(f"# model: {REPO} (hub id at commit {COMMIT}", out)
                self.assertNotIn("catalogue", out.split("# model:")[1].splitlines()[0])

    def test_a_pasted_launch_of_a_hostile_hub_model_runs_only_the_engine(self):
        # The hub's config names an unknown architecture whose name holds newlines and a command.
        with open(os.path.join(ROOT, "data", "models", "qwen3-0.6b", "config.json")) as f:
            config = json.load(f)
        config["model_type"] = "zz_unknown"
        config["architectures"] = ["X\ntouch PWNED\n"]
        path = os.path.join(self.cache(), "config.json")
        with open(path, "w") as f:
            json.dump(config, f)
        code, out, err = self.fetch(config=path, args=("launch", f"{REPO}@main", "--gpus", "1xH100", "--engine",
                                                       "vllm", "--context", "8K"))
        self.assertIn(code, (0, 1), err)
        sandbox = tempfile.mkdtemp(dir=self.tmp)
        script = os.path.join(sandbox, "..", os.path.basename(sandbox) + ".sh")
        with open(script, "w") as f:
            f.write(out)
        self.assertEqual(subprocess.run(["bash", "-n", script]).returncode, 0)
        subprocess.run(["bash", "-c", "vllm() { :; }; . " + script], cwd=sandbox, capture_output=True)
        self.assertEqual(os.listdir(sandbox), [])

    def test_a_bad_answer_never_enters_the_cache(self):
        # Each poisoning answer fails its own run; the next run against a healthy hub,
        # with the same cache and no --refresh, reads the model exactly.
        for fault, message in (("html_config", "config.json"), ("html_index", "index"),
                               ("truncated", "the header request returned"), ("garbage_header", ""),
                               ("lying", "runs past the file's")):
            with self.subTest(fault=fault):
                cache = self.cache()
                code, out, err = self.fetch(fault=fault, cache=cache, shards=64 if fault == "lying" else 3,
                                            args=("inspect", f"{REPO}@main", "--format", "json",
                                                  "--shard-headers", "all"))
                self.assertEqual(code, 2, err)
                self.assertIn(message, err)
                code, out, err = self.fetch(cache=cache, args=("inspect", f"{REPO}@main", "--format", "json"))
                self.assertEqual(code, 0, err)
                got = json.loads(out)
                self.assertTrue(got["reconciliation"]["exact"])
                self.assertTrue(same_inventory(got, self.embedded))
                leftovers = [n for _, dirs, files in os.walk(cache) for n in dirs + files if n.startswith(".incoming")]
                self.assertEqual(leftovers, [])

    def test_answers_that_cannot_succeed_are_not_waited_out(self):
        # A redirect loop is not retried; a stalled transfer ends after PREFLIGHT_HUB_STALL_S;
        # a huge Retry-After is capped (it overflowed a signed multiply).
        start = time.monotonic()
        code, out, err = self.fetch(fault="redirect_loop", extra_env={"PREFLIGHT_HUB_ATTEMPTS": "5"})
        self.assertEqual(code, 2, err)
        self.assertIn("failed after 1 attempt(s)", err)
        self.assertLess(time.monotonic() - start, 10)
        start = time.monotonic()
        code, out, err = self.fetch(fault="stall", delay=60, extra_env={"PREFLIGHT_HUB_STALL_S": "2",
                                                                        "PREFLIGHT_HUB_TIMEOUT_MS": "60000",
                                                                        "PREFLIGHT_HUB_ATTEMPTS": "2"})
        self.assertEqual(code, 2, err)
        self.assertIn("stalled after", err)
        self.assertLess(time.monotonic() - start, 20)
        start = time.monotonic()
        code, out, err = self.fetch(fault="retry_after_huge")
        self.assertEqual(code, 0, err)
        self.assertLess(time.monotonic() - start, 20)  # one wait, capped at 8 s
        code, _, err = run(["inspect", f"{REPO}@main"], self.cache(), 9, {"PREFLIGHT_HUB_STALL_S": "0"})
        self.assertEqual(code, 2)
        self.assertIn("PREFLIGHT_HUB_STALL_S: expected a whole number from 1 to 600, got '0'", err)

    def test_429_or_503_then_success(self):
        for fault in ("429once", "503once"):
            with self.subTest(fault=fault):
                code, out, err = self.fetch(fault=fault)
                self.assertEqual(code, 0, err)
                self.assertTrue(same_inventory(json.loads(out), self.embedded))

    def test_gated_repository_takes_the_token_from_the_environment_or_the_token_file(self):
        code, _, err = self.fetch(fault="auth")
        self.assertEqual(code, 2)
        self.assertIn("is gated or private (HTTP 401)", err)
        hub = FakeHub(self.tensors, fault="auth")
        try:
            code, out, err = run(["inspect", f"{REPO}@{COMMIT}", "--format", "json"], self.cache(), hub.port,
                                 {"HF_TOKEN": "hf_fake_token"})
            self.assertEqual(code, 0, err)
            with urllib.request.urlopen(f"http://127.0.0.1:{hub.port}/stats", timeout=10) as res:
                stats = json.loads(res.read())
            self.assertEqual(stats["auth_leaks"], 0)  # the token went to the hub, never to the CDN it redirects to
        finally:
            hub.close()
        cache = self.cache()
        os.makedirs(os.path.join(cache, "huggingface"))
        with open(os.path.join(cache, "huggingface", "token"), "w") as f:
            f.write("hf_fake_token\n")  # what `huggingface-cli login` writes under $HF_HOME
        code, out, err = self.fetch(fault="auth", cache=cache, extra_env={"HF_HOME": os.path.join(cache, "huggingface")})
        self.assertEqual(code, 0, err)
        code, _, err = self.fetch(fault="auth", extra_env={"HF_TOKEN": "hf_wrong"})
        self.assertIn("the token given was refused", err)

    def k3(self, fault="", mode="auto"):
        if not hasattr(self, "k3_tensors"):
            Hub.k3_tensors = os.path.join(self.tmp, "k3-tensors.json")
            with open(self.k3_tensors, "w") as f:
                f.write(subprocess.run([BINARY, "inspect", "kimi-k3", "--tensors", "--format", "json"], capture_output=True,
                                       text=True, check=True).stdout)
            Hub.k3_embedded = json.loads(subprocess.run([BINARY, "inspect", "kimi-k3", "--format", "json"],
                                                        capture_output=True, text=True, check=True).stdout)
        hub = FakeHub(self.k3_tensors, repo="moonshotai/Kimi-K3", fault=fault, shards=96,
                      config=os.path.join(ROOT, "data", "models", "kimi-k3", "config.json"))
        try:
            code, out, err = run(["inspect", f"moonshotai/Kimi-K3@{COMMIT}", "--format", "json", "--no-cache",
                                  "--shard-headers", mode], self.cache(), hub.port)
        finally:
            hub.close()
        self.assertEqual(code, 0, err)
        return json.loads(out)

    def test_kimi_k3_96_shards_gives_the_embedded_inventory_in_under_2_mb(self):
        got = self.k3()
        self.assertEqual(got["model"]["revision"], COMMIT)
        self.assertTrue(same_inventory(got, self.k3_embedded))
        rec, fetch = got["reconciliation"], got["hub_fetch"]
        self.assertTrue(rec["exact"])
        self.assertTrue(rec["adds_up"])
        self.assertEqual(rec["method"], "index_and_shard_sizes")
        self.assertEqual(rec["shards_verified_by_size"], 96)
        self.assertEqual(rec["real_tensors"], 497220)
        self.assertEqual(rec["real_bytes"], self.k3_embedded["model"]["checkpoint_bytes"])
        # The acceptance: under 2 MB besides the index and the listing (here 96 x 8 bytes and the config).
        self.assertEqual(fetch["shard_headers"], "lengths")
        self.assertEqual(fetch["shard_lengths_read"], 96)
        self.assertEqual(fetch["shard_headers_read"], 0)
        self.assertEqual(fetch["shard_bytes"], 96 * 8)
        self.assertLess(fetch["shard_bytes"] + fetch["config_bytes"], 2_000_000)
        self.assertGreater(fetch["estimated_header_bytes_all"], 2_000_000)  # why auto chose lengths
        print("\n  Kimi-K3 from the loopback hub (auto):", got["source"], json.dumps(fetch))

    def test_kimi_k3_every_header_is_exact_per_tensor(self):
        got = self.k3(mode="all")
        self.assertTrue(same_inventory(got, self.k3_embedded))
        self.assertEqual(got["reconciliation"]["method"], "shard_headers")
        self.assertTrue(got["reconciliation"]["exact"])
        self.assertEqual(got["hub_fetch"]["shard_headers_read"], 96)
        print("\n  Kimi-K3 from the loopback hub (all):", got["source"], json.dumps(got["hub_fetch"]))

    def test_a_shard_that_differs_is_read_in_full_and_its_tensor_named(self):
        code, out, err = self.fetch(fault="altered", args=("inspect", f"{REPO}@{COMMIT}", "--format", "json",
                                                           "--shard-headers", "lengths"))
        self.assertEqual(code, 0, err)
        got = json.loads(out)
        rec, fetch = got["reconciliation"], got["hub_fetch"]
        self.assertFalse(rec["exact"])
        self.assertTrue(rec["adds_up"])
        self.assertEqual(rec["mismatched"], 1)
        self.assertEqual(rec["shards_read_in_full"], 1)
        self.assertEqual(rec["shards_verified_by_size"], 2)
        self.assertEqual(fetch["shard_headers_read"], 1)
        with open(self.tensors) as f:
            tensors = json.load(f)["tensors"]
        first_of_shard_2 = tensors[(len(tensors) + 2) // 3]
        elements = 1
        for d in first_of_shard_2[2]:
            elements *= d
        self.assertEqual(rec["examples"][0]["name"], first_of_shard_2[0])
        self.assertTrue(rec["examples"][0]["real"].startswith("F32 "))
        self.assertEqual(rec["mismatch_byte_delta"], 4 * elements - first_of_shard_2[3])

    def test_server_fetches_hub_models_only_with_hub(self):
        hub = FakeHub(self.tensors)
        cache = self.cache()
        env = dict(os.environ, XDG_CACHE_HOME=cache, HOME=cache, HF_ENDPOINT=f"http://127.0.0.1:{hub.port}")
        env.pop("HF_HUB_OFFLINE", None)
        model = f"{REPO}@{COMMIT}"
        try:
            server = Server(BINARY, "--hub", env=env)
            try:
                status, body, headers = server.request("/api/inspect", {"model": model})
                self.assertEqual(status, 200, body)
                got = json.loads(body)
                self.assertEqual(got["model"]["revision"], COMMIT)
                self.assertTrue(same_inventory(got, self.embedded))
                self.assertTrue(got["reconciliation"]["exact"])
                status, body, _ = server.request(f"/api/plan?model={model}&gpus=1xH100")
                self.assertEqual(status, 200, body)
                self.assertEqual(json.loads(body)["model"]["name"], REPO)
                # The API can renew a hub model's cached metadata: a pinned commit is served from
                # memory, refresh=true reads the hub again.
                def hub_bytes():
                    with urllib.request.urlopen(f"http://127.0.0.1:{hub.port}/stats", timeout=10) as r:
                        return json.loads(r.read())["bytes_sent"]
                sent = hub_bytes()
                self.assertEqual(server.request("/api/inspect", {"model": model})[0], 200)
                again = hub_bytes()
                self.assertLess(again - sent, 100)  # the /stats answer itself, no model bytes
                status, body, _ = server.request("/api/inspect", {"model": model, "refresh": True})
                self.assertEqual(status, 200, body)
                self.assertTrue(json.loads(body)["reconciliation"]["exact"])
                self.assertGreater(hub_bytes() - again, 1000)  # the config and headers again
                status, body, _ = server.request("/api/plan", {"model": "kimi-k3", "gpus": "8xH100"})
                self.assertEqual(status, 200, body)  # catalogue names stay embedded
                # Many requests at once for a branch (resolved each time, cache entries written concurrently).
                with concurrent.futures.ThreadPoolExecutor(8) as pool:
                    answers = list(pool.map(lambda _: server.request("/api/inspect", {"model": f"{REPO}@main"}),
                                            range(16)))
                self.assertEqual({a[0] for a in answers}, {200}, answers[0][1])
                reconciliations = {json.dumps(json.loads(a[1])["reconciliation"], sort_keys=True) for a in answers}
                self.assertEqual(len(reconciliations), 1)
            finally:
                server.close()
            server = Server(BINARY, env=env)
            try:
                status, body, headers = server.request("/api/plan", {"model": model, "gpus": "1xH100"})
                self.assertEqual(status, 400, body)
                self.assertIn("start it with `preflight serve --hub`", json.loads(body)["error"])
            finally:
                server.close()
        finally:
            hub.close()

    def test_a_silent_hub_holds_no_worker_past_the_request_deadline(self):
        hub = FakeHub(self.tensors, fault="slow", delay=120)  # answers nothing for two minutes
        cache = self.cache()
        env = dict(os.environ, XDG_CACHE_HOME=cache, HOME=cache, HF_ENDPOINT=f"http://127.0.0.1:{hub.port}")
        env.pop("HF_HUB_OFFLINE", None)
        try:
            server = Server(BINARY, "--hub", "--request-timeout", "5", "--threads", "2", env=env)
            try:
                def timed(path):
                    start = time.monotonic()
                    status, body, _ = server.request(path)
                    return status, body, time.monotonic() - start
                with concurrent.futures.ThreadPoolExecutor(4) as pool:
                    hub_requests = [pool.submit(timed, f"/api/plan?model={REPO}%40main&gpus=1xH100") for _ in range(3)]
                    time.sleep(0.5)
                    status, body, plan_s = timed("/api/plan?model=kimi-k3&gpus=8xH100")
                    self.assertEqual(status, 200, body)
                    self.assertLess(plan_s, 1, "a catalogue plan waited behind hub fetches")
                    for future in hub_requests:
                        status, body, elapsed = future.result()
                        self.assertEqual(status, 503, body)
                        self.assertIn("deadline", json.loads(body)["error"])
                        self.assertLess(elapsed, 6.5)
            finally:
                server.close()
        finally:
            hub.close()

    def test_malformed_ids(self):
        code, _, err = run(["inspect", "hf://kimi-k3"], self.cache(), 9)
        self.assertEqual(code, 2)
        self.assertIn("expected a hub id ORG/NAME[@REVISION]", err)


if __name__ == "__main__":
    BINARY = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
