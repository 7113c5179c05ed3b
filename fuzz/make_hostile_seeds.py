#!/usr/bin/env python3
"""Writes the hostile seeds of the JSON fuzz targets (issue 13), committed under
fuzz/corpus/<target>/hostile_*: nesting just past the 512-level limit and at
10^5 levels, at the place each reader looks first, and large documents (many
keys, long strings, control characters and bidirectional overrides in names).
Fuzzing from small seeds never found the 10^5-level crash: libFuzzer grows
inputs slowly and stops at the corpus's longest seed.
Usage: fuzz/make_hostile_seeds.py  (from the repository root; rewrites the seeds)
"""
import json
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def arrays(n):
    return "[" * n + "]" * n


def objects(n):
    n = min(n, 20_000)  # six bytes a level: past the limit by far, without 600 KB seeds
    return '{"a":' * n + "1" + "}" * n


def shard(header):
    return struct.pack("<Q", len(header)) + header.encode()


def many_keys(n, value="1"):
    return "{" + ",".join(f'"k{i}\\u001b[31m\u202e":{value}' for i in range(n)) + "}"


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "hostile_" + name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def main():
    for depth, tag in ((513, "513"), (100_000, "100k")):
        write("config", f"nested_model_type_{tag}.json", '{"model_type": ' + arrays(depth) + "}")
        write("config", f"nested_objects_{tag}.json", '{"model_type": "llama", "text_config": ' + objects(depth) + "}")
        write("config", f"nested_quantization_{tag}.json",
              '{"model_type": "llama", "quantization_config": {"config_groups": ' + arrays(depth) + "}}")
        write("gpu_catalogue", f"nested_{tag}.json",
              '{"schema": "preflight.gpus/1", "accelerators": [{"id": "x", "aliases": ' + arrays(depth) + "}]}")
        write("engine_profile", f"nested_{tag}.json", '{"vllm": ' + objects(depth) + "}")
        write("hub_listing", f"nested_{tag}.json", '{"sha": "0", "siblings": ' + arrays(depth) + "}")
        write("safetensors_index", f"nested_{tag}.json", '{"metadata": {"total_size": 1}, "weight_map": ' + objects(depth) + "}")
        write("safetensors_header", f"nested_{tag}.safetensors", shard('{"t": ' + arrays(depth) + "}"))
        write("api_request", f"nested_{tag}", "p" + '{"gpus": "8xH100", "model_config": {"a": ' + arrays(depth) + "}}")
    # Large documents: many keys with escapes in their names, long strings.
    write("config", "large_keys.json", '{"model_type": "llama", "extra": ' + many_keys(5000) + "}")
    write("config", "long_string.json", json.dumps({"model_type": "x" * 100_000, "architectures": ["\x1b[2J" * 1000]}))
    write("gpu_catalogue", "large_keys.json", '{"schema": "preflight.gpus/1", "accelerators": [' +
          ",".join(f'{{"id": "gpu-{i}\\n", "nominal_gb": 80}}' for i in range(3000)) + "]}")
    write("hub_listing", "large_siblings.json", json.dumps({"sha": "0" * 40, "siblings": [
        {"rfilename": f"model-{i:05d}-of-09999.safetensors\u202e", "size": i} for i in range(5000)]}))
    write("safetensors_index", "large_weight_map.json", json.dumps({"metadata": {"total_size": 10 ** 12}, "weight_map": {
        f"model.layers.{i}.mlp.experts.{j}.w1.weight": f"model-{i:05d}.safetensors" for i in range(60) for j in range(64)}}))
    tensors = {f"model.layers.{i}.w\x1b": {"dtype": "BF16", "shape": [4, 4], "data_offsets": [32 * i, 32 * i + 32]}
               for i in range(3000)}
    write("safetensors_header", "large_header.safetensors", shard(json.dumps(tensors)))
    write("engine_profile", "large_keys.json", '{"vllm": ' + many_keys(5000) + "}")
    write("api_request", "large_body", "p" + json.dumps({"gpus": "8xH100", "model_name": "\x1b[2J" * 5000,
                                                          "model_config": {"model_type": "llama", "pad": "y" * 100_000}}))


if __name__ == "__main__":
    main()
