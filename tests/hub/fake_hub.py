#!/usr/bin/env python3
"""A fake Hugging Face Hub on loopback, for tests without the internet.

It serves one repository: the listing (/api/models/ORG/NAME/revision/REV?blobs=true),
config.json, model.safetensors.index.json (weight_map + total_size) and shard files at /ORG/NAME/resolve/COMMIT/FILE with HTTP range
requests. Shards are virtual: real safetensors headers generated from a tensor
list (`preflight inspect MODEL --tensors --format json`), followed by zeros
that are never stored, so a 1.5 TB model costs a few MB of memory.

A fault can be injected (--fault): slow, drop, truncated (a request for header bytes
past the first 8 comes back half as long), truncated8 (a request from byte 0 returns 4 bytes), 429once, 503once (every path fails once), 401, 404, lying, auth
(a gated repository: every request needs "Authorization: Bearer hf_fake_token"),
altered (shard 2's first tensor is stored as F32 although the config says otherwise:
the index is unchanged, the shard grows), consolidated (a scenario, not a fault: the
repository also holds consolidated.safetensors, the same tensors under other names,
which the index does not name, as Mistral's repositories do), mistral and gguf (the
listing has params.json or a .gguf file instead of config.json), redirect_file (shard
files redirect to file:///etc/passwd, which a client must not follow), deep_listing
(the listing nests --depth arrays: a hostile server's JSON), html_config and
html_index (an HTML page with status 200 for config.json or the index, as a
proxy's error page comes), garbage_header (each shard's length is right, its
header bytes are not JSON), retry_after_huge (the listing answers 429 once with
Retry-After: 9223372036854775807), stall (config.json announces 1000 bytes more
than it sends and holds the connection for --delay seconds), redirect_loop
(shard files redirect to themselves).
Usage: fake_hub.py --repo ORG/NAME --config CONFIG.json --tensors TENSORS.json --shards N [--fault F]
Like the real Hub, shard files are answered with a 302 to a second server (the
"CDN", another port) that serves them by signed URL: it needs no token, and counts
requests that carry one anyway (GET /stats on the hub: {"bytes_sent", "auth_leaks"}),
since a client must not send the user's token to another host.
Prints "listening on PORT" on its first line. With --write-snapshot DIR it writes
the same repository as a local snapshot folder instead (config.json, the index and
sparse shards: real headers, holes for the data) and exits, so a test can plan the
same files from the Hub and from disk.
"""
import argparse
import json
import os
import re
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def build_shards(tensors, count, altered=False):
    """Splits the tensor list into `count` shards: ({name: (header_bytes, file_size)}, weight_map)."""
    per = (len(tensors) + count - 1) // count
    shards, weight_map = {}, {}
    for i in range(count):
        part = tensors[i * per:(i + 1) * per]
        name = f"model-{i + 1:05d}-of-{count:05d}.safetensors"
        header, offset = {"__metadata__": {"format": "pt"}}, 0
        for j, (t_name, dtype, shape, nbytes) in enumerate(part):
            if altered and i == 1 and j == 0:  # stored wider than the config says
                elements = 1
                for d in shape:
                    elements *= d
                dtype, nbytes = "F32", 4 * elements
            header[t_name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + nbytes]}
            weight_map[t_name] = name
            offset += nbytes
        text = json.dumps(header, separators=(",", ":")).encode()
        text += b" " * ((8 - len(text) % 8) % 8)
        shards[name] = (struct.pack("<Q", len(text)) + text, 8 + len(text) + offset)
    return shards, weight_map


class Hub:
    def __init__(self, repo, config, tensors, shard_count, fault, delay):
        self.repo, self.config, self.fault, self.delay = repo, config, fault, delay
        self.shards, weight_map = build_shards(tensors, shard_count, fault == "altered")
        payload = sum(size - len(header) for header, size in self.shards.values())
        if fault == "consolidated":
            renamed = [["consolidated." + t[0], *t[1:]] for t in tensors]
            self.shards["consolidated.safetensors"] = next(iter(build_shards(renamed, 1)[0].values()))
        # As transformers' save_pretrained writes it: json.dumps(index, indent=2, sort_keys=True).
        self.index = json.dumps({"metadata": {"total_size": payload}, "weight_map": weight_map}, indent=2,
                                sort_keys=True).encode()
        self.seen = set()
        self.lock = threading.Lock()
        self.bytes_sent = 0
        self.auth_leaks = 0  # CDN requests that carried an Authorization header
        self.cdn_port = None
        first = {"mistral": "params.json", "gguf": "model-Q4_K_M.gguf"}.get(fault, "config.json")
        siblings = [{"rfilename": ".gitattributes", "size": 1519}, {"rfilename": first, "size": len(config)}]
        siblings += [{"rfilename": n, "size": size} for n, (_, size) in sorted(self.shards.items())]
        if shard_count > 1:
            siblings.append({"rfilename": "model.safetensors.index.json", "size": len(self.index)})
        self.listing = json.dumps({"id": repo, "sha": COMMIT, "siblings": siblings,
                                   "usedStorage": sum(s["size"] for s in siblings)}).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    hub = None

    def log_message(self, *args):
        pass

    def setup(self):
        # The status line and headers go out in one write, the body in another: without
        # TCP_NODELAY, Nagle holds the body back until the client's delayed ACK (about
        # 40 ms) on a reused keep-alive connection, and a benchmark measures that stall.
        super().setup()
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send(self, status, body=b"", headers=None):
        try:
            self.send_response(status)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (it had its answer)
            return
        with self.hub.lock:
            self.hub.bytes_sent += len(body)

    def first_time(self):
        with self.hub.lock:
            if self.path in self.hub.seen:
                return False
            self.hub.seen.add(self.path)
            return True

    def do_HEAD(self):
        """Whether a file exists (how @huggingface/hub's fileExists asks, on /raw/ or /resolve/)."""
        hub = self.hub
        m = re.fullmatch(r"/(.+)/(?:raw|resolve)/([^/]+)/(.+)", self.path)
        name = m.group(3) if m else ""
        known = (m is not None and m.group(1) == hub.repo and m.group(2) in ("main", COMMIT)
                 and (name == "config.json" or name in hub.shards
                      or (name == "model.safetensors.index.json" and len(hub.shards) > 1)))
        self.send_response(200 if known else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        hub, fault = self.hub, self.hub.fault
        if self.path == "/stats":
            return self.send(200, json.dumps({"bytes_sent": hub.bytes_sent, "auth_leaks": hub.auth_leaks}).encode())
        if fault == "slow":
            time.sleep(hub.delay)
        if fault == "deep_listing" and self.path.startswith("/api/models/"):
            return self.send(200, b'{"siblings": ' + b"[" * hub.depth + b"]" * hub.depth + b"}")
        if fault == "retry_after_huge" and self.path.startswith("/api/models/") and self.first_time():
            return self.send(429, b"slow down", {"Retry-After": "9223372036854775807"})
        if fault == "stall" and self.path.endswith("/config.json"):
            # Announces more bytes than it sends, then keeps the connection open.
            self.send_response(200)
            self.send_header("Content-Length", str(len(hub.config) + 1000))
            self.end_headers()
            self.wfile.write(hub.config)
            self.wfile.flush()
            time.sleep(hub.delay)
            return None
        if fault == "429once" and self.first_time():
            return self.send(429, b"slow down", {"Retry-After": "0"})
        if fault == "503once" and self.first_time():
            return self.send(503, b"service unavailable")
        m = re.fullmatch(r"/cdn/([0-9a-f]{40})/(.+)\?signature=fake", self.path)
        if m:  # the CDN: a signed URL, no token needed
            if self.headers.get("Authorization"):
                with hub.lock:
                    hub.auth_leaks += 1
            if m.group(1) != COMMIT or m.group(2) not in hub.shards:
                return self.send(404, b"not found")
            return self.serve_shard(m.group(2))
        if fault == "auth" and self.headers.get("Authorization") != "Bearer hf_fake_token":
            return self.send(401, b'{"error":"Invalid credentials in Authorization header"}')
        m = re.fullmatch(r"/api/models/(.+)/revision/([^?]+)\?blobs=true", self.path)
        if m:
            if fault == "401":
                return self.send(401, b'{"error":"Access to model is restricted"}')
            if fault == "404" or m.group(1) != hub.repo or m.group(2) not in ("main", COMMIT):
                return self.send(404, b'{"error":"Repository not found"}')
            return self.send(200, hub.listing, {"Content-Type": "application/json"})
        m = re.fullmatch(r"/(.+)/(?:resolve|raw)/([0-9a-f]{40})/(.+)", self.path)
        if not m or m.group(1) != hub.repo or m.group(2) != COMMIT:
            return self.send(404, b"not found")
        name = m.group(3)
        html = b"<!doctype html><html><body>Service temporarily unavailable</body></html>"
        if name == "config.json":
            if fault == "html_config":
                return self.send(200, html, {"Content-Type": "text/html"})
            return self.send_file(name, hub.config)
        if name == "model.safetensors.index.json" and len(hub.shards) > 1:
            if fault == "html_index":
                return self.send(200, html, {"Content-Type": "text/html"})
            return self.send_file(name, hub.index)
        if name not in hub.shards:
            return self.send(404, b"not found")
        if fault == "redirect_file":
            return self.send(302, b"", {"Location": "file:///etc/passwd"})
        if fault == "redirect_loop":
            return self.send(302, b"", {"Location": self.path})
        return self.send(302, b"", {"Location": f"http://127.0.0.1:{hub.cdn_port}/cdn/{COMMIT}/{name}?signature=fake"})

    def send_file(self, name, body):
        """A small file: whole, or the asked range with its Content-Range (as @huggingface/hub's
        fileDownloadInfo asks, "bytes=0-0", to learn the size), with an ETag like the Hub's."""
        etag = {"ETag": '"%s"' % name}
        rng = re.fullmatch(r"bytes=(\d+)-(\d+)", self.headers.get("Range", ""))
        if not rng:
            return self.send(200, body, etag)
        first, last = int(rng.group(1)), min(int(rng.group(2)), len(body) - 1)
        return self.send(206, body[first:last + 1], dict(etag, **{"Content-Range": f"bytes {first}-{last}/{len(body)}"}))

    def serve_shard(self, name):
        hub, fault = self.hub, self.hub.fault
        header, size = hub.shards[name]
        if fault == "lying" and size - 7 <= 100_000_000:
            # One byte longer than the file allows (shards over safetensors' header cap stay honest).
            header = struct.pack("<Q", size - 7) + header[8:]
        if fault == "garbage_header":  # the right length, then bytes that are not JSON
            header = header[:8] + b"\xff" * (len(header) - 8)
        if fault == "drop":
            self.close_connection = True
            self.wfile.flush()
            self.connection.shutdown(2)
            return None
        rng = re.fullmatch(r"bytes=(\d+)-(\d+)", self.headers.get("Range", ""))
        if not rng:
            return self.send(400, b"this fake hub serves shards by range only")
        first, last = int(rng.group(1)), min(int(rng.group(2)), size - 1)
        body = header[first:last + 1] + b"\0" * max(0, last + 1 - max(first, len(header)))
        if fault == "truncated" and last >= 8:  # any request for header bytes past the length
            body = body[: max(8, len(body) // 2)] if first == 0 else body[: len(body) // 2]
        if fault == "truncated8" and first == 0:  # the length itself
            body = body[:4]
        return self.send(206, body, {"Content-Range": f"bytes {first}-{last}/{size}", "ETag": '"%s"' % name})


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repo", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--tensors", required=True)
    p.add_argument("--shards", type=int, default=4)
    p.add_argument("--fault", default="")
    p.add_argument("--delay", type=float, default=3.0)
    p.add_argument("--depth", type=int, default=100_000)
    p.add_argument("--write-snapshot", default="")
    a = p.parse_args()
    with open(a.config, "rb") as f:
        config = f.read()
    with open(a.tensors) as f:
        tensors = json.load(f)["tensors"]
    Handler.hub = Hub(a.repo, config, tensors, a.shards, a.fault, a.delay)
    Handler.hub.depth = a.depth
    if a.write_snapshot:
        os.makedirs(a.write_snapshot, exist_ok=True)
        with open(os.path.join(a.write_snapshot, "config.json"), "wb") as f:
            f.write(config)
        if a.shards > 1:
            with open(os.path.join(a.write_snapshot, "model.safetensors.index.json"), "wb") as f:
                f.write(Handler.hub.index)
        for name, (header, size) in Handler.hub.shards.items():
            with open(os.path.join(a.write_snapshot, name), "wb") as f:
                f.write(header)
                f.truncate(size)  # a hole: the tensor data is never read
        return 0
    # A listen backlog of 128, not socketserver's 5: at concurrency 16 the default
    # queue overflowed into one-second SYN retries, and benchmarks measured the hub.
    ThreadingHTTPServer.request_queue_size = 128
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    cdn = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    cdn.daemon_threads = True
    Handler.hub.cdn_port = cdn.server_address[1]
    threading.Thread(target=cdn.serve_forever, daemon=True).start()
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
