#!/usr/bin/env python3
"""A package-index server for tests: serves a folder over HTTP on 127.0.0.1 and injects faults.

Standard library only. Prints "PORT <n>" on its first stdout line once it listens, then serves
until its standard input closes (so it dies with the test that started it) or it is killed.

Usage: index_server.py --root DIR [--port 0] [--faults FILE] [--log FILE]

Serving:
  - a folder answers with its index.html, or with index.v1.json as
    application/vnd.pypi.simple.v1+json when the Accept header prefers that type (PEP 691);
    a folder asked for without its trailing '/' is redirected (301) to it
  - ETag (from the content's sha256) and Last-Modified on every file; If-None-Match and
    If-Modified-Since answer 304
  - Range: bytes=N- / N-M / -N answers 206 with Content-Range (416 when past the end)
  - proxy requests (absolute URL in the request line, "GET http://host/path") are answered from
    the same folder and logged with "proxy": true, so tests can check that a proxy was used
    without any traffic leaving the machine

Faults: --faults names a JSON file read again on every request: {"<path>": SPEC, ...}; "<path>"
is the request path without the query ("/cu128/torch/"), or "*" for every path. SPEC keys:
  status: N        answer with HTTP status N ...
  times: K         ... for the first K matching requests only (default: always); applies to
                   every fault in the SPEC
  reset: true      close the connection at once (TCP RST), no answer
  truncate: K      send the full Content-Length but only the first K body bytes, then close
  delay: S         wait S seconds (float) before answering
  redirect: "/p"   answer 302 (or "code") with Location: /p
  code: N          status of the redirect (301, 302, 307, 308)
  content_type: T  send Content-Type T instead of the file's
  body: "..."      send this text instead of the file
  flip: K          send the file with byte K inverted (a wheel damaged on the way, same size)
  auth: "u:p"      require HTTP basic auth with these credentials (401 otherwise)
  no_etag: true    send neither ETag nor Last-Modified
  cache_control: "max-age=600"   send this Cache-Control (on 200 and 304 alike)
  etag: "\"x\""    send this ETag instead of the content's
  not_modified: true   answer 304 to any conditional request, whatever its validators
  no_range: true   ignore Range (always 200 with the whole file)
  endless: true    answer 200 with a body that never ends (zeros, until the client goes), with no
                   Content-Length, or with the one "content_length" says

Log: --log names a file that gets one JSON line per request: method, path, proxy, host, and
headers (lower-case names; Authorization is replaced by the user name it carries, the
password is never written).
"""
import argparse, base64, email.utils, hashlib, json, os, socket, struct, sys, threading, time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
COUNTS = {}
LOCK = threading.Lock()


def load_faults():
    if not ARGS.faults or not os.path.exists(ARGS.faults):
        return {}
    with open(ARGS.faults, encoding="utf-8") as f:
        return json.load(f)


def content_type_of(path):
    if path.endswith(".html"):
        return "text/html; charset=utf-8"
    if path.endswith(".v1.json"):
        return "application/vnd.pypi.simple.v1+json"
    if path.endswith(".json"):
        return "application/json"
    if path.endswith(".metadata"):
        return "text/plain; charset=utf-8"
    return "application/octet-stream"


def prefers_json(accept):
    best_json, best_html = 0.0, 0.0
    for part in (accept or "").split(","):
        fields = [x.strip() for x in part.split(";")]
        q = 1.0
        for p in fields[1:]:
            if p.startswith("q="):
                try:
                    q = float(p[2:])
                except ValueError:
                    q = 0.0
        t = fields[0].lower()
        if t == "application/vnd.pypi.simple.v1+json":
            best_json = max(best_json, q)
        elif t in ("text/html", "application/vnd.pypi.simple.v1+html", "*/*"):
            best_html = max(best_html, q)
    return best_json > 0 and best_json >= best_html


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def log_request_line(self, path, proxy, host):
        if not ARGS.log:
            return
        headers = {}
        for k, v in self.headers.items():
            k = k.lower()
            if k in ("authorization", "proxy-authorization"):
                try:
                    v = base64.b64decode(v.split(" ", 1)[1]).decode().split(":", 1)[0]
                except Exception:
                    v = "?"
                k = k + "-user"
            headers[k] = v
        line = json.dumps({"method": self.command, "path": path, "proxy": proxy, "host": host, "headers": headers})
        with LOCK:
            with open(ARGS.log, "a", encoding="utf-8") as f:
                f.write(line + "\n")

    def do_HEAD(self):
        self.handle_one(head=True)

    def do_GET(self):
        self.handle_one(head=False)

    def send_plain(self, status, text, extra=None):
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_endless(self, length):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        chunk = b"\0" * 65536
        try:
            for _ in range(1 << 20):  # 64 GiB at most: bounded, whatever the client does
                self.wfile.write(chunk)
        except OSError:
            pass

    def reset(self):
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    def handle_one(self, head):
        raw = self.path
        proxy, host = False, self.headers.get("Host", "")
        if raw.startswith("http://") or raw.startswith("https://"):
            u = urllib.parse.urlsplit(raw)
            proxy, host, raw = True, u.netloc, u.path or "/"
        path = raw.split("?", 1)[0]
        self.log_request_line(path, proxy, host)
        faults = load_faults()
        spec = faults.get(path) or faults.get("*") or {}
        if spec:
            key = path if path in faults else "*"
            with LOCK:
                n = COUNTS.get(key, 0)
                COUNTS[key] = n + 1
            if "times" in spec and n >= spec["times"]:
                spec = {}
        if spec.get("delay"):
            time.sleep(float(spec["delay"]))
        if spec.get("reset"):
            return self.reset()
        if "auth" in spec:
            want = "Basic " + base64.b64encode(spec["auth"].encode()).decode()
            if self.headers.get("Authorization") != want:
                return self.send_plain(401, "authentication required\n", {"WWW-Authenticate": 'Basic realm="index"'})
        if "redirect" in spec:
            return self.send_plain(spec.get("code", 302), "moved\n", {"Location": spec["redirect"]})
        if "status" in spec:
            return self.send_plain(spec["status"], "fault %d\n" % spec["status"])
        if spec.get("endless"):
            return self.send_endless(spec.get("content_length"))

        local = os.path.normpath(os.path.join(ARGS.root, urllib.parse.unquote(path).lstrip("/")))
        if not (local == ARGS.root or local.startswith(ARGS.root + os.sep)):
            return self.send_plain(403, "outside the root\n")
        if os.path.isdir(local):
            if not path.endswith("/"):
                return self.send_plain(301, "moved\n", {"Location": path + "/"})
            json_page = os.path.join(local, "index.v1.json")
            if prefers_json(self.headers.get("Accept")) and os.path.exists(json_page):
                local = json_page
            else:
                local = os.path.join(local, "index.html")
        if "body" in spec:
            data, mtime = spec["body"].encode(), 0
        elif os.path.isfile(local):
            with open(local, "rb") as f:
                data = f.read()
            mtime = os.path.getmtime(local)
            if "flip" in spec and int(spec["flip"]) < len(data):
                damaged = bytearray(data)
                damaged[int(spec["flip"])] ^= 0xFF
                data = bytes(damaged)
        else:
            return self.send_plain(404, "not found\n")
        ctype = spec.get("content_type") or content_type_of(local)
        etag = spec.get("etag") or '"%s"' % hashlib.sha256(data).hexdigest()[:32]
        last_modified = email.utils.formatdate(mtime, usegmt=True)
        validators = {} if spec.get("no_etag") else {"ETag": etag, "Last-Modified": last_modified}
        if "cache_control" in spec:
            validators["Cache-Control"] = spec["cache_control"]
        if validators:
            inm = self.headers.get("If-None-Match")
            ims = self.headers.get("If-Modified-Since")
            conditional = inm or ims
            if (inm and inm == etag) or (not inm and ims and ims == last_modified) or (conditional and spec.get("not_modified")):
                self.send_response(304)
                for k, v in validators.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        status, start, end = 200, 0, len(data)
        rng = self.headers.get("Range")
        if rng and rng.startswith("bytes=") and not spec.get("no_range"):
            first, _, last = rng[6:].partition("-")
            if not first:  # a suffix: the last N bytes (RFC 9110 14.1.2), as installers ask for a zip's directory
                start, end = max(0, len(data) - int(last)), len(data)
            else:
                start = int(first)
                end = min(int(last) + 1, len(data)) if last else len(data)
            if start >= len(data):
                return self.send_plain(416, "range not satisfiable\n", {"Content-Range": "bytes */%d" % len(data)})
            status = 206
        body = data[start:end]
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end - 1, len(data)))
        for k, v in validators.items():
            self.send_header(k, v)
        self.end_headers()
        if head:
            return
        if "truncate" in spec:
            self.wfile.write(body[: int(spec["truncate"])])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(body)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # resets and truncations are on purpose


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--root", required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--faults")
    p.add_argument("--log")
    ARGS = p.parse_args()
    ARGS.root = os.path.realpath(ARGS.root)
    server = Server(("127.0.0.1", ARGS.port), Handler)
    print("PORT %d" % server.server_address[1], flush=True)

    def watch_stdin():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except Exception:
            pass
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
