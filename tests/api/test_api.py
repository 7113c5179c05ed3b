#!/usr/bin/env python3
"""The JSON API of `preflight serve`, as a script would use it (ctest api_http).

Usage: test_api.py PATH/TO/preflight
Checks: every endpoint answers with the CLI's JSON for the same parameters;
malformed requests (bad JSON, a huge body, an unknown GPU, a zero count, an
unknown parameter, a file path as the model) get a 400 with a one-line JSON
message and the server keeps serving; an uploaded config.json plans.
"""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from serve_fixture import Server  # noqa: E402

BINARY = None
REFERENCE = os.path.join(os.path.dirname(__file__), "..", "data", "reference")


def cli_json(*args):
    out = subprocess.run([BINARY, *args, "--format", "json"], capture_output=True, text=True)
    return out.returncode, json.loads(out.stdout)


class Api(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server(BINARY)

    @classmethod
    def tearDownClass(cls):
        cls.server.close()

    def post(self, command, body):
        status, text, headers = self.server.request("/api/" + command, body)
        return status, json.loads(text), headers

    def test_payloads_are_the_cli_json(self):
        cases = [
            ("plan", {"gpus": "8xH100"}, ["plan", "--gpus", "8xH100"]),
            ("plan", {"gpus": "8xB300", "context": "128K", "concurrency": 4, "kv_dtype": "fp8"},
             ["plan", "--gpus", "8xB300", "--context", "128K", "--concurrency", "4", "--kv-dtype", "fp8"]),
            ("explain", {"model": "deepseek-v3", "gpus": "8xH200", "context": "32K"},
             ["explain", "deepseek-v3", "--gpus", "8xH200", "--context", "32K"]),
            ("inspect", {"model": "gpt-oss-120b"}, ["inspect", "gpt-oss-120b"]),
            ("fit", {"gpu": ["H100", "B300"]}, ["fit", "--gpu", "H100", "--gpu", "B300"]),
            ("max", {"gpus": "8xB300", "solve": "context"}, ["max", "--gpus", "8xB300", "--solve", "context"]),
            ("sweep", {"gpu": "H200", "counts": "8..32", "context": "128K"},
             ["sweep", "--gpu", "H200", "--counts", "8..32", "--context", "128K"]),
            ("launch", {"gpus": "8xB300", "engine": "vllm"}, ["launch", "--gpus", "8xB300", "--engine", "vllm"]),
            ("gpus", {}, ["gpus"]),
            ("models", {}, ["models"]),
        ]
        for command, body, argv in cases:
            with self.subTest(command=command, body=body):
                status, payload, headers = self.post(command, body)
                code, expected = cli_json(*argv)
                self.assertEqual(status, 200, payload)
                self.assertEqual(payload, expected)
                self.assertEqual(headers.get("X-Preflight-Exit-Code"), str(code))

    def test_get_with_query_parameters(self):
        status, text, _ = self.server.request("/api/plan?gpus=16xH200&context=128K&kv-dtype=fp8")
        self.assertEqual(status, 200)
        _, expected = cli_json("plan", "--gpus", "16xH200", "--context", "128K", "--kv-dtype", "fp8")
        self.assertEqual(json.loads(text), expected)

    def test_malformed_requests_get_400_and_the_server_keeps_serving(self):
        cases = [
            (b'{"gpus": "8xH100"', "request body: invalid JSON"),
            (b"[1, 2]", "request body: expected a JSON object of parameters"),
            (json.dumps({"gpus": "8xH1000"}).encode(), "--gpus: unknown GPU 'H1000'"),
            (json.dumps({"gpus": "0xH100"}).encode(), "--gpus: GPU count must be at least 1"),
            (json.dumps({"gpus": "8xH100", "bogus": 1}).encode(), "bogus: unknown parameter"),
            (json.dumps({"gpus": "8xH100", "model": "/etc/passwd"}).encode(), "unknown model '/etc/passwd'"),
            (json.dumps({"gpus": "8xH100", "catalogue": "/etc/passwd"}).encode(), "reads no files"),
            (json.dumps({"gpus": "8xH100", "context": {"a": 1}}).encode(), "context: expected a string or a number"),
            (json.dumps({"gpus": "8xH100", "kv_dtype": "fp4"}).encode(), "--kv-dtype: expected auto, bf16"),
            (b"x" * (5 * 1024 * 1024), "request body exceeds the 4194304 byte limit"),
        ]
        for raw, message in cases:
            with self.subTest(message=message):
                status, text, _ = self.server.request("/api/plan", raw=raw)
                self.assertEqual(status, 400, text)
                payload = json.loads(text)
                self.assertIn(message, payload["error"])
                self.assertNotIn("\n", payload["error"])
                self.assertEqual(self.server.request("/api/plan", {"gpus": "8xH100"})[0], 200)

    def test_unknown_paths_and_commands(self):
        self.assertEqual(self.server.request("/api/nope")[0], 404)
        self.assertEqual(self.server.request("/nope")[0], 404)

    def test_uploaded_config_plans(self):
        with open(os.path.join(REFERENCE, "models", "meta-llama__Llama-3.1-8B-Instruct", "config.json")) as f:
            config = json.load(f)
        status, payload, _ = self.post("plan", {"gpus": "1xH100", "context": 8192, "model_config": config,
                                                 "model_name": "llama.json"})
        self.assertEqual(status, 200, payload)
        _, expected = cli_json("plan", "llama-3.1-8b-instruct", "--gpus", "1xH100", "--context", "8192")
        self.assertEqual(payload["model"]["name"], "llama.json")
        self.assertEqual(payload["verdict"], expected["verdict"])
        self.assertEqual(payload["perf"]["decode_tokens_per_s_bound"], expected["perf"]["decode_tokens_per_s_bound"])
        status, payload, _ = self.post("plan", {"gpus": "1xH100", "model_config": "{not json"})
        self.assertEqual(status, 400)
        # The server still answers after a bad upload.
        self.assertEqual(self.post("plan", {"gpus": "1xH100", "model": "qwen3-0.6b"})[0], 200)

    def test_launch_copy_text_carries_no_line_from_an_upload(self):
        # The page copies the launch's verdict line and shell text; an uploaded config
        # whose architectures hold a newline and a command must not add a line to either.
        with open(os.path.join(REFERENCE, "models", "meta-llama__Llama-3.1-8B-Instruct", "config.json")) as f:
            config = json.load(f)
        config["model_type"] = "zz_unknown"
        config["architectures"] = ["X\ntouch PWNED\n"]
        status, payload, _ = self.post("launch", {"gpus": "1xH100", "engine": "vllm", "context": 8192,
                                                   "model_config": config, "model_name": "m\ntouch PWNED2\n"})
        self.assertEqual(status, 200, payload)
        def strings(node):
            if isinstance(node, dict):
                for v in node.values():
                    yield from strings(v)
            elif isinstance(node, list):
                for v in node:
                    yield from strings(v)
            elif isinstance(node, str):
                yield node
        for value in strings(payload):
            self.assertNotIn("\n", value, value[:200])

    def test_page_is_served(self):
        status, text, headers = self.server.request("/")
        self.assertEqual(status, 200)
        self.assertIn("preflight", text)
        self.assertTrue(headers["Content-Type"].startswith("text/html"))
        for path in ("/app.js", "/charts.js", "/style.css"):
            self.assertEqual(self.server.request(path)[0], 200, path)


if __name__ == "__main__":
    BINARY = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
