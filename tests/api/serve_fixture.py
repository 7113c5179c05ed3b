"""Starts `preflight serve --port 0` on loopback for a test and stops it after."""
import json
import re
import subprocess
import time
import urllib.error
import urllib.request


class Server:
    def __init__(self, binary, *args, env=None):
        self.proc = subprocess.Popen([binary, "serve", "--port", "0", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline()
        match = re.search(r"http://([0-9.]+):(\d+)/", line)
        if not match:
            self.proc.kill()
            raise RuntimeError("preflight serve did not say where it listens: " + line + self.proc.stderr.read())
        self.base = f"http://{match.group(1)}:{match.group(2)}"

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()

    def request(self, path, body=None, raw=None, method=None):
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request(self.base + path, data=data, method=method or ("POST" if data is not None else "GET"),
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as res:
                return res.status, res.read().decode(), dict(res.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(), dict(e.headers)
