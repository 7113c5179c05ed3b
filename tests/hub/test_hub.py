#!/usr/bin/env python3
"""Reading models from the Hub, against a fake hub on loopback (ctest hub_fetch).

Usage: test_hub.py PATH/TO/preflight
Each fault of fake_hub.py gets one specific, one-line outcome and exit code,
never a wrong number; a pinned fetch gives the embedded entry's inventory and
the commit; the cache serves HF_HUB_OFFLINE=1 and says when something is missing.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BINARY = None
COMMIT = "0123456789abcdef0123456789abcdef01234567"
REPO = "Qwen/Qwen3-0.6B"


class FakeHub:
    def __init__(self, tensors, repo=REPO, config=None, shards=3, fault="", delay=3.0):
        config = config or os.path.join(ROOT, "data", "models", "qwen3-0.6b", "config.json")
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_hub.py"), "--repo", repo, "--config", config,
                                      "--tensors", tensors, "--shards", str(shards), "--fault", fault, "--delay", str(delay)],
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
        cases = [
            ("401", 2, "is gated or private (HTTP 401): accept its terms on the Hub, then set HF_TOKEN"),
            ("404", 2, "no such model or revision on http://127.0.0.1"),
            ("truncated", 2, "truncated"),
            ("lying", 2, "runs past the file's"),  # 64 shards: each under safetensors' 100 MB header cap
            ("drop", 2, "failed after 3 attempt(s)"),
            ("slow", 2, "failed after 3 attempt(s): Timeout was reached"),
        ]
        for fault, code_wanted, message in cases:
            with self.subTest(fault=fault):
                code, out, err = self.fetch(fault=fault, shards=64 if fault == "lying" else 3)
                self.assertEqual(code, code_wanted, err)
                self.assertIn(message, err)
                self.assertEqual(err.count("\n"), 0, err)
                self.assertEqual(out, "")  # never a number

    def test_429_then_success(self):
        code, out, err = self.fetch(fault="429once")
        self.assertEqual(code, 0, err)
        self.assertTrue(same_inventory(json.loads(out), self.embedded))

    def test_gated_repository_takes_the_token_from_the_environment_or_the_token_file(self):
        code, _, err = self.fetch(fault="auth")
        self.assertEqual(code, 2)
        self.assertIn("is gated or private (HTTP 401)", err)
        code, out, err = self.fetch(fault="auth", extra_env={"HF_TOKEN": "hf_fake_token"})
        self.assertEqual(code, 0, err)
        cache = self.cache()
        os.makedirs(os.path.join(cache, "huggingface"))
        with open(os.path.join(cache, "huggingface", "token"), "w") as f:
            f.write("hf_fake_token\n")  # what `huggingface-cli login` writes under $HF_HOME
        code, out, err = self.fetch(fault="auth", cache=cache, extra_env={"HF_HOME": os.path.join(cache, "huggingface")})
        self.assertEqual(code, 0, err)
        code, _, err = self.fetch(fault="auth", extra_env={"HF_TOKEN": "hf_wrong"})
        self.assertIn("the token given was refused", err)

    def test_kimi_k3_96_shards_gives_the_embedded_inventory(self):
        tensors = os.path.join(self.tmp, "k3-tensors.json")
        with open(tensors, "w") as f:
            f.write(subprocess.run([BINARY, "inspect", "kimi-k3", "--tensors", "--format", "json"], capture_output=True,
                                   text=True, check=True).stdout)
        embedded = json.loads(subprocess.run([BINARY, "inspect", "kimi-k3", "--format", "json"], capture_output=True,
                                             text=True, check=True).stdout)
        hub = FakeHub(tensors, repo="moonshotai/Kimi-K3", config=os.path.join(ROOT, "data", "models", "kimi-k3", "config.json"),
                      shards=96)
        try:
            code, out, err = run(["inspect", f"moonshotai/Kimi-K3@{COMMIT}", "--format", "json", "--no-cache"], self.cache(),
                                 hub.port)
        finally:
            hub.close()
        self.assertEqual(code, 0, err)
        got = json.loads(out)
        self.assertEqual(got["model"]["revision"], COMMIT)
        self.assertTrue(got["reconciliation"]["exact"])
        self.assertTrue(same_inventory(got, embedded))
        print("\n  Kimi-K3 from the loopback hub:", got["source"])

    def test_malformed_ids(self):
        code, _, err = run(["inspect", "hf://kimi-k3"], self.cache(), 9)
        self.assertEqual(code, 2)
        self.assertIn("expected a hub id ORG/NAME[@REVISION]", err)


if __name__ == "__main__":
    BINARY = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
