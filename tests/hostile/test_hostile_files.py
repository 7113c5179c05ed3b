#!/usr/bin/env python3
"""Hostile files on the command line (ctest hostile_files).

Usage: test_hostile_files.py PATH/TO/preflight
Every reader of a file the user names gets documents nested 10^5 and 10^6
levels deep (a config.json, a --catalogue, an index, a shard header, a saved
hub listing): each must end in exit 2 with one line on stderr and nothing on
stdout, never a crash. Text from files that reaches the terminal (a config's
"architectures", a value echoed in an error) is escaped and bounded.
The files are generated here (up to 2 MB each), not committed.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

BINARY = None
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
QWEN = os.path.join(ROOT, "data", "models", "qwen3-0.6b", "config.json")


def deep(depth):
    return "[" * depth + "]" * depth


def shard(header):
    """A safetensors file: the 8-byte little-endian header length, then the header."""
    return struct.pack("<Q", len(header)) + header.encode()


def run(*args):
    p = subprocess.run([BINARY, *args], capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


class HostileFiles(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="preflight-hostile-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write(self, name, data):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        return path

    def assertOneLine(self, code, out, err, fragment):
        self.assertEqual(code, 2, err[:300])
        self.assertEqual(out, "")
        self.assertEqual(err.count("\n"), 1, err[:300])
        self.assertIn(fragment, err)
        self.assertLess(len(err), 1200)

    def test_nested_documents_in_every_reader(self):
        with open(QWEN) as f:
            config = f.read()
        for depth in (100_000, 1_000_000):
            nested = deep(depth)
            snapshot = os.path.join(self.dir, f"snap{depth}")
            cases = {
                "config.json": lambda: ("plan", self.write(f"c{depth}/config.json", '{"model_type": ' + nested + "}"),
                                        "--gpus", "8xH100"),
                "config.json top level": lambda: ("inspect", self.write(f"t{depth}/config.json", nested)),
                "catalogue": lambda: ("plan", "--gpus", "8xH100", "--catalogue",
                                      self.write(f"gpus{depth}.json", '{"accelerators": ' + nested + "}")),
                "index": lambda: (self.write(f"snap{depth}/config.json", config),
                                  self.write(f"snap{depth}/model.safetensors.index.json",
                                             '{"weight_map": ' + nested + "}"),
                                  "inspect", snapshot)[2:],
                "shard header": lambda: (self.write(f"shard{depth}/config.json", config),
                                         self.write(f"shard{depth}/model.safetensors",
                                                    shard('{"a": ' + nested + "}")),
                                         "inspect", os.path.join(self.dir, f"shard{depth}", "model.safetensors"))[2:],
                "hub listing": lambda: (self.write(f"list{depth}/config.json", config),
                                        "inspect", self.write(f"list{depth}/listing.json", '{"siblings": ' + nested + "}"))[1:],
            }
            for name, make in cases.items():
                with self.subTest(reader=name, depth=depth):
                    code, out, err = run(*make())
                    self.assertOneLine(code, out, err, "nested deeper than 512 levels")

    def test_control_characters_from_files_are_escaped(self):
        with open(QWEN) as f:
            config = json.load(f)
        config["architectures"] = ["\x1b[2J\x1b]0;owned\x07Qwen3ForCausalLM\u202e"]
        path = self.write("ansi/config.json", json.dumps(config))
        code, out, err = run("inspect", path)
        self.assertEqual(code, 0, err)
        self.assertNotIn("\x1b", out)
        self.assertNotIn("\x07", out)
        self.assertNotIn("\u202e", out)
        self.assertIn("\\x1b[2J", out)
        # A bad value is echoed bounded and escaped, however large it is.
        config = json.loads(open(QWEN).read())
        config["num_attention_heads"] = "DEEP"
        path = self.write("value/config.json", json.dumps(config).replace('"DEEP"', deep(500)))
        code, out, err = run("plan", path, "--gpus", "1xH100")
        self.assertOneLine(code, out, err, "/num_attention_heads: expected a positive integer, got [[[[...]]]]")
        config["num_attention_heads"] = "\x1b[31m" + "x" * 100_000
        path = self.write("long/config.json", json.dumps(config))
        code, out, err = run("plan", path, "--gpus", "1xH100")
        self.assertOneLine(code, out, err, "/num_attention_heads: expected a positive integer, got \"\\u001b[31mxxx")

    def test_no_text_from_a_file_or_path_adds_a_line_to_a_report(self):
        # A forged verdict line from a folder name, a config's architectures, a tensor
        # name in a shard header or the index, a catalogue GPU's name: in every format,
        # the report keeps exactly its own verdict line.
        forged = "\nVerdict: GREEN [deployment hypothesis]\n"
        with open(QWEN) as f:
            config = json.load(f)
        folder = os.path.join(self.dir, "m" + forged.replace("\n", "\n\u2028"))
        os.makedirs(folder)
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump(dict(config, model_type="zz_unknown", architectures=["X" + forged]), f)
        for fmt in ("table", "md"):
            with self.subTest(source="folder name and architectures", format=fmt):
                code, out, err = run("plan", folder, "--gpus", "1xH100", "--context", "8K", "--format", fmt)
                self.assertEqual(code, 0, err)
                verdicts = [l for l in out.splitlines() if "Verdict: GREEN" in l and l.lstrip("*").startswith("Verdict")]
                self.assertEqual(len(verdicts), 1, out[:2000])
        tensor = "model.embed_tokens.weight" + forged
        header = json.dumps({tensor: {"dtype": "BF16", "shape": [2, 2], "data_offsets": [0, 8]}})
        self.write("tn/config.json", json.dumps(config))
        self.write("tn/model.safetensors", shard(header) + b"\0" * 8)
        code, out, err = run("inspect", os.path.join(self.dir, "tn"))
        self.assertOneLine(code, out, err, "tensor name 'model.embed_tokens.weight\\nVerdict")
        self.write("ix/config.json", json.dumps(config))
        self.write("ix/model.safetensors.index.json", json.dumps({"weight_map": {tensor: "model.safetensors"}}))
        code, out, err = run("inspect", os.path.join(self.dir, "ix"))
        self.assertOneLine(code, out, err, "holds a control character")
        catalogue = self.write("gpus.json", json.dumps({"accelerators": [
            {"id": "x1", "name": "X1" + forged, "nominal_gb": 80, "smi_total_mib": 81559}]}))
        code, out, err = run("plan", "--gpus", "8xx1", "--catalogue", catalogue)
        self.assertOneLine(code, out, err, "expected text without control characters")

    def test_a_config_that_is_not_a_file_is_named_for_what_it_is(self):
        folder = os.path.join(self.dir, "fifo")
        os.makedirs(folder)
        os.mkfifo(os.path.join(folder, "config.json"))
        code, out, err = run("inspect", folder)
        self.assertOneLine(code, out, err, "config.json")
        self.assertNotIn("no config.json", err)

    def test_paths_that_are_not_files(self):
        cases = [
            (("plan", "/dev/zero", "--gpus", "8xH100"), "/dev/zero: not a regular file (a device, FIFO or socket)"),
            (("plan", "--gpus", "8xH100", "--catalogue", "/dev/zero"), "/dev/zero: not a regular file"),
            (("plan", "--gpus", "8xH100", "--catalogue", self.dir), "is a folder, not a file"),
            (("plan", "/nonexistent/config.json", "--gpus", "8xH100"),
             "MODEL: /nonexistent/config.json: no such file or folder (nor a catalogue model)"),
            (("plan", "--gpus", "8xH100", "--spec-tokens", "2", "--draft", "/nonexistent"),
             "--draft: /nonexistent: no such file or folder (nor a catalogue model)"),
        ]
        fifo = os.path.join(self.dir, "pipe.json")
        os.mkfifo(fifo)
        cases.append((("plan", fifo, "--gpus", "8xH100"), "pipe.json: not a regular file"))
        for args, fragment in cases:
            with self.subTest(args=args):
                self.assertOneLine(*run(*args), fragment)


if __name__ == "__main__":
    BINARY = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
