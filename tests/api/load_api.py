#!/usr/bin/env python3
"""Bounded loopback load test of `preflight serve` (ctest api_load).

Usage: load_api.py PATH/TO/preflight [REQUESTS] [CONCURRENCY]
Sends REQUESTS (default 10,000) POST /api/plan requests from CONCURRENCY
(default 64) clients, one connection each, and prints p50/p99 latency,
throughput and the error count; exits 1 on any error. Figures for people:
nothing here asserts a time.
"""
import http.client
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from serve_fixture import Server  # noqa: E402


def main():
    binary = sys.argv[1]
    total = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    clients = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    server = Server(binary)
    host, port = server.base.split("//")[1].split(":")
    body = json.dumps({"gpus": "8xH100"}).encode()
    latencies, errors, lock = [], [], threading.Lock()
    counter = iter(range(total))

    def client(index):
        # Ramp up over about a second: httplib's listen backlog is 5 connections,
        # so 64 simultaneous connects would test the kernel's SYN queue, not the server.
        time.sleep(index * 0.02)
        conn = http.client.HTTPConnection(host, int(port), timeout=60)
        sent = 0
        while True:
            with lock:
                if next(counter, None) is None:
                    break
            start = time.perf_counter()
            try:
                conn.request("POST", "/api/plan", body, {"Content-Type": "application/json"})
                res = conn.getresponse()
                payload = res.read()
                ok = res.status == 200 and b'"verdict"' in payload
            except Exception as e:  # a dropped connection is an error, then reconnect
                ok = False
                payload = f"{e} (request {sent + 1} on this connection)".encode()
                conn.close()
                conn = http.client.HTTPConnection(host, int(port), timeout=60)
            elapsed = time.perf_counter() - start
            sent += 1
            with lock:
                latencies.append(elapsed)
                if not ok:
                    errors.append(payload[:200])
        conn.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    server.close()
    latencies.sort()
    pct = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000
    print(f"POST /api/plan (kimi-k3 on 8xH100): {len(latencies)} requests from {clients} clients in {wall:.1f} s "
          f"({len(latencies) / wall:.0f} req/s); latency p50 {pct(0.50):.1f} ms, p99 {pct(0.99):.1f} ms, "
          f"max {latencies[-1] * 1000:.1f} ms; errors {len(errors)}")
    for e in errors[:5]:
        print("  error:", e)
    return 1 if errors or len(latencies) != total else 0


if __name__ == "__main__":
    sys.exit(main())
