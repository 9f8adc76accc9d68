#!/usr/bin/env python3
"""envfix against pip and uv on one machine in one run (issue 9; docs/performance.md, "envfix,
pip and uv side by side"). Standard library only: it runs on the GPU machine as it is.

Usage: bench/compare.py --index DIR [--mode index|files] [--envfix build/envfix] [--python /usr/bin/python3]
                        [--pip-python PY] [--reps 3] [--pip-reps N] [--budget SECONDS] [--tools envfix,pip,uv]
                        [--doctor-python PY] [--work DIR] [--out DIR] [--machine LABEL]

--index is a folder made by bench/synth_stack.py (synthetic, torch-shaped) or bench/real_stack.py
(the real installed stack repacked): files/*.whl, simple/<project>/index.html, and stack.json,
which names two variants of one release (the first installed, the second switched to) with their
requirements and wheel files. The folder is served on 127.0.0.1 while the benchmark runs.

Each repetition runs one chain per tool, the tools in a different order each time:
  1 cold     the first variant into a new venv, every cache of the tool emptied and the page
             cache dropped (where /proc/sys/vm/drop_caches can be written);
  2 warm     the same into another new venv, caches as the cold run left them;
  3 switch   that venv to the second variant, in place;
  4 rollback back to the first: `envfix rollback` (when the build has it), pip and uv reinstall
             the first variant's requirements;
then once: 5 `envfix doctor` (warm, after one untimed run) against importing torch and asking it
for its architectures; 6 peak RSS of each tool in 1 (wait4's ru_maxrss: the process and the
children it waited for). Every install is checked afterwards (torch's installed version).

How each tool installs (--mode): `index` (the default) from the index over HTTP, the variant's
requirements (torch==2.11.0+cu126 ...) with `--index-url URL` for every tool (envfix with
`--torch-from index`, so torch comes from that index as it does for pip and uv; where no NVIDIA GPU
is, envfix plans for the tests' stand-in H200, --standin); `files`: every tool from the same local
files, envfix given the variant's wheel files, pip and uv `--no-index --find-links DIR/files` and
the requirements (they resolve the same closure). pip runs with --no-compile, as envfix and uv write
no bytecode. A tool that is missing, or a measurement envfix cannot make in this build, is reported as
skipped with the reason. Results: OUT/results.json and OUT/results.md.
"""
import argparse, datetime, functools, glob, http.server, json, os, platform, shutil, socketserver, statistics
import subprocess, sys, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import standin  # noqa: E402
MEASURES = ["cold", "warm", "switch", "rollback"]


class Skip(Exception):
    """A measurement this tool or build cannot make; the message says why."""


# ---------------------------------------------------------------- processes, timing


def run_timed(argv, env, log):
    """Runs argv; returns wall seconds, CPU seconds (user + system, children included) and peak RSS
    in MiB, from wait4. Output goes to the log file, not a pipe, so nothing blocks while it runs."""
    with open(log, "ab") as out:
        out.write(("\n$ " + " ".join(argv) + "\n").encode())
        out.flush()
        t = time.monotonic()
        p = subprocess.Popen(argv, env=env, stdout=out, stderr=out, stdin=subprocess.DEVNULL)
        peaks = {}
        sampler = threading.Thread(target=sample_rss, args=(p.pid, peaks), daemon=True)
        sampler.start()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t
        p.returncode = os.waitstatus_to_exitcode(status)
        sampler.join()
    if p.returncode != 0:
        raise RuntimeError(f"exit {p.returncode}: {' '.join(argv[:6])}… (see {log})")
    return {"seconds": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss_mib": ru.ru_maxrss / 1024, **peaks}


def sample_rss(pid, peaks):
    """Peak anonymous and file-backed resident memory of the process (not its children), sampled
    every 10 ms from /proc: ru_maxrss counts the pages of mapped files too (the wheels an installer
    maps, the files it writes through a mapping), which the kernel can drop at any time."""
    path = f"/proc/{pid}/status"
    while True:
        try:
            with open(path) as f:
                text = f.read()
        except OSError:
            return
        for line in text.splitlines():
            key = {"RssAnon:": "anon_mib", "RssFile:": "file_mib", "RssShmem:": "shmem_mib"}.get(line.split(":")[0] + ":")
            if key:
                peaks[key] = max(peaks.get(key, 0), int(line.split()[1]) / 1024)
        if text.find("State:\tZ") >= 0:
            return
        time.sleep(0.01)


def envfix_processes():
    """Running processes whose program is an envfix binary (by /proc/<pid>/exe)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if os.path.basename(os.readlink(f"/proc/{pid}/exe")).startswith("envfix"):
                found.append(int(pid))
        except OSError:
            pass
    return found


def wait_background(limit=120.0):
    """Seconds until the work envfix left running after it exited (`envfix cache ready`, started
    detached to make ready trees) ends: the next tool's run is timed without it beside."""
    t = time.monotonic()
    quiet_polls = 0
    while time.monotonic() - t < limit and quiet_polls < 3:
        quiet_polls = quiet_polls + 1 if not envfix_processes() else 0
        time.sleep(0.01)
    return max(0.0, time.monotonic() - t - 0.03)


def quiet(argv, env=None):
    return subprocess.run(argv, env=env, capture_output=True, text=True)


def drop_page_cache():
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


# ---------------------------------------------------------------- the index server


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Static files as a CDN serves an index (the PyTorch index is on CloudFront/R2): single byte
    ranges (206), which installers use to read a wheel's directory, and files sent with sendfile so
    the server is not what the tools wait on."""
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def log_request(self, code="-", size="-"):
        # Counted per status, so each step reports what it asked of the index (304s among them).
        with self.server.count_lock:
            key = str(int(code)) if isinstance(code, int) else str(code)  # an HTTPStatus is an int
            self.server.counts[key] = self.server.counts.get(key, 0) + 1

    def send_head(self):
        self.range = None
        spec = self.headers.get("Range", "")
        path = self.translate_path(self.path)
        if not spec.startswith("bytes=") or "," in spec or not os.path.isfile(path):
            return super().send_head()
        size = os.path.getsize(path)
        first, _, last = spec[6:].strip().partition("-")
        try:
            if first == "":
                start, end = max(0, size - int(last)), size - 1
            else:
                start, end = int(first), min(size - 1, int(last)) if last else size - 1
        except ValueError:
            return super().send_head()
        if start > end or start >= size:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        f = open(path, "rb")
        self.range = (start, end)
        self.send_response(206)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        return f

    def copyfile(self, source, outputfile):
        start, end = self.range or (0, os.fstat(source.fileno()).st_size - 1)
        outputfile.flush()
        try:
            self.connection.sendfile(source, offset=start, count=end - start + 1)
        except (BrokenPipeError, ConnectionResetError):
            pass


class QuietServer(socketserver.ThreadingTCPServer):
    def handle_error(self, request, client_address):
        pass  # a client that closes a connection early (a Range request answered whole) is no error here


def serve(folder):
    handler = functools.partial(QuietHandler, directory=folder)
    httpd = QuietServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    httpd.request_queue_size = 128  # uv opens 50 connections at once
    httpd.counts, httpd.count_lock = {}, threading.Lock()
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/simple/"


def standin_env(mode):
    """On a machine without an NVIDIA GPU, envfix's plan would find no CUDA build fits: it is pointed at
    the stand-in driver library of the tests (tests/standin), answering as the GPU machine's H200 with
    driver 580.159.04. pip and uv do not look at the GPU."""
    if mode == "no" or (mode == "auto" and os.path.exists("/dev/nvidiactl")):
        return {}
    env = standin.h200_env()
    if not os.path.exists(env["ENVFIX_LIBCUDA"]):
        if mode == "yes":
            raise SystemExit(f"--standin yes: {env['ENVFIX_LIBCUDA']} is missing (build the tests)")
        return {}
    return env


# ---------------------------------------------------------------- the tools


class Tool:
    name = "?"

    def __init__(self, b):
        self.b = b  # the Bench: paths, stack, environment

    def clear_cache(self):
        shutil.rmtree(self.cache, ignore_errors=True)

    def install(self, venv, variant):
        raise NotImplementedError

    def rollback(self, venv, variant):
        return self.install(venv, variant)  # reinstalling the previous versions


class Envfix(Tool):
    name = "envfix"

    def __init__(self, b):
        super().__init__(b)
        self.exe = b.a.envfix
        if not os.access(self.exe, os.X_OK):
            raise Skip(f"{self.exe} not built")
        self.cache = os.path.join(b.work, "envfix-cache")
        self.data = os.path.join(b.work, "envfix-data")
        top = quiet([self.exe, "--help"]).stdout
        help_text = quiet([self.exe, "install", "--help"]).stdout
        self.index_mode = "--index-url" in help_text and "--torch-from" in help_text
        self.has_rollback = " rollback" in top and " history" in top

    def env(self):
        return dict(self.b.env, ENVFIX_CACHE_DIR=self.cache, ENVFIX_DATA_DIR=self.data, **self.b.standin)

    def clear_cache(self):
        shutil.rmtree(self.cache, ignore_errors=True)
        shutil.rmtree(self.data, ignore_errors=True)

    def install(self, venv, variant):
        v = self.b.stack["variants"][variant]
        if self.b.index_mode:
            # --torch-from index: torch comes from this index like any package (as pip and uv get it)
            args = ["--index-url", self.b.url, "--torch-from", "index", "-y"] + v["requirements"]
        else:
            args = [os.path.join(self.b.a.index, w) for w in v["wheels"]]
        # --no-verify: pip and uv run nothing after installing (verify is timed on its own, docs/verify.md)
        return run_timed([self.exe, "install", "--json", "--no-verify", "--env", venv] + args, self.env(), self.b.log(self.name))

    def rollback(self, venv, variant):
        if not self.has_rollback:
            raise Skip("not available in this build (no `envfix rollback`/`history` in envfix --help)")
        r = run_timed([self.exe, "rollback", "--json", "-y", "--env", venv], self.env(), self.b.log(self.name))
        hist = quiet([self.exe, "history", "--json", "--env", venv], self.env())
        try:  # for the record only: how many snapshots the environment holds after the rollback
            r["history_entries"] = len(json.loads(hist.stdout).get("snapshots", []))
        except (ValueError, AttributeError):
            r["history_entries"] = None
        return r


class Pip(Tool):
    name = "pip"

    def __init__(self, b):
        super().__init__(b)
        self.cache = os.path.join(b.work, "pip-cache")
        self.python = b.a.pip_python or b.a.python
        r = quiet([self.python, "-m", "pip", "--version"])
        if r.returncode != 0:
            raise Skip(f"no pip for {self.python}")
        self.version = r.stdout.split()[1]
        if tuple(int(x) for x in self.version.split(".")[:2]) < (22, 3):
            raise Skip(f"pip {self.version} lacks --python (22.3+)")

    def install(self, venv, variant):
        v = self.b.stack["variants"][variant]
        src = ["--index-url", self.b.url] if self.b.index_mode else ["--no-index", "--find-links", self.b.files]
        argv = [self.python, "-m", "pip", "--python", os.path.join(venv, "bin", "python"), "install", "--no-input",
                "--disable-pip-version-check", "--no-compile", "--cache-dir", self.cache] + src + v["requirements"]
        return run_timed(argv, self.b.env, self.b.log(self.name))


class Uv(Tool):
    name = "uv"

    def __init__(self, b):
        super().__init__(b)
        self.exe = shutil.which("uv")
        if not self.exe:
            raise Skip("uv not on PATH")
        self.version = quiet([self.exe, "--version"]).stdout.split()[1]
        self.cache = os.path.join(b.work, "uv-cache")  # same filesystem as the venvs: uv links from it

    def install(self, venv, variant):
        v = self.b.stack["variants"][variant]
        src = ["--index-url", self.b.url] if self.b.index_mode else ["--no-index", "--find-links", self.b.files]
        argv = [self.exe, "pip", "install", "--python", os.path.join(venv, "bin", "python"), "--cache-dir", self.cache] + src + v["requirements"]
        return run_timed(argv, dict(self.b.env, UV_NO_PROGRESS="1"), self.b.log(self.name))


TOOLS = {"envfix": Envfix, "pip": Pip, "uv": Uv}


# ---------------------------------------------------------------- the bench


class Bench:
    def __init__(self, a):
        self.a = a
        self.work = os.path.abspath(a.work)
        self.files = os.path.join(os.path.abspath(a.index), "files")
        with open(os.path.join(a.index, "stack.json")) as f:
            self.stack = json.load(f)
        self.first, self.second = self.stack["order"]
        os.makedirs(self.work, exist_ok=True)
        os.makedirs(a.out, exist_ok=True)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_", "VIRTUAL_ENV", "ENVFIX_", "PYTHON"))}
        self.env["HOME"] = os.path.join(self.work, "home")  # no user configuration of any tool
        self.httpd, self.url = serve(os.path.abspath(a.index))
        self.tools, self.skipped = {}, {}
        for name in a.tools.split(","):
            try:
                self.tools[name] = TOOLS[name](self)
            except Skip as e:
                self.skipped[name] = str(e)
        envfix = self.tools.get("envfix")
        # index (the default): every tool installs the variant's requirements from the index served
        # on 127.0.0.1; files: every tool gets the same local wheels (no HTTP, no resolution of
        # index pages: the installers' own work alone).
        self.index_mode = a.mode == "index" and bool(envfix and envfix.index_mode)
        if a.mode == "index" and envfix and not envfix.index_mode:
            self.skipped["index mode"] = "this envfix has no `install --index-url --torch-from`: local files instead"
        self.standin = standin_env(a.standin)
        self.results = {m: {t: [] for t in self.tools} for m in MEASURES}
        self.dropped = None

    def log(self, tool):
        return os.path.join(self.a.out, f"{tool}.log")

    def fresh_venv(self, tool, label):
        v = os.path.join(self.work, f"venv-{tool}-{label}")
        shutil.rmtree(v, ignore_errors=True)
        subprocess.run([self.a.python, "-m", "venv", "--without-pip", v], check=True)
        return v

    def check(self, venv, variant):
        want = next(r.split("==")[1] for r in self.stack["variants"][variant]["requirements"] if r.startswith("torch=="))
        metas = glob.glob(os.path.join(venv, "lib", "python*", "site-packages", "torch-*.dist-info", "METADATA"))
        have = [l.split(":", 1)[1].strip() for m in metas for l in open(m) if l.startswith("Version:")]
        if have != [want]:
            raise RuntimeError(f"{venv}: torch {have} installed, {want} expected")

    def measure(self, measure, tool, fn, venv, variant):
        """One timed step; a failure or skip is recorded, not fatal, so the other tools still run."""
        # Flush what the previous steps wrote and deleted first. ext4 will not reuse an inode
        # deleted in the last 60 s, or 360 s while its inode-table block is still dirty
        # (`recently_deleted`), and scans past each one: after a 17 000-file tree is deleted,
        # creating files costs several times more CPU. The sync shortens that window for every
        # tool alike; the cold runs, after dropping the caches, escape it entirely.
        os.sync()
        with self.httpd.count_lock:
            asked_before = dict(self.httpd.counts)
        try:
            r = fn(venv, variant)
            if tool.name == "envfix":
                r["background_s"] = wait_background()
            self.check(venv, variant)
            r["ok"] = True
        except Skip as e:
            r = {"ok": False, "skipped": str(e)}
        except RuntimeError as e:
            r = {"ok": False, "error": str(e)}
        with self.httpd.count_lock:
            asked = {k: v - asked_before.get(k, 0) for k, v in self.httpd.counts.items() if v != asked_before.get(k, 0)}
        r["requests"] = sum(asked.values())
        r["not_modified"] = asked.get("304", 0)
        self.results[measure][tool.name].append(r)
        shown = f"{r['seconds']:.2f} s, CPU {r['cpu']:.2f} s, RSS {r['rss_mib']:.0f} MiB (anonymous {r.get('anon_mib', 0):.0f})" if r["ok"] else r.get("skipped") or r.get("error")
        print(f"  {measure:8s} {tool.name:6s} {shown}", file=sys.stderr, flush=True)
        return r["ok"]

    def chain(self, tool, rep):
        tool.clear_cache()
        cold = self.fresh_venv(tool.name, "cold")
        d = drop_page_cache()
        self.dropped = d if self.dropped is None else self.dropped and d
        self.measure("cold", tool, tool.install, cold, self.first)
        shutil.rmtree(cold, ignore_errors=True)
        v = self.fresh_venv(tool.name, "warm")
        if self.measure("warm", tool, tool.install, v, self.first):
            if self.measure("switch", tool, tool.install, v, self.second):
                self.measure("rollback", tool, tool.rollback, v, self.first)
        if tool.name == "envfix" and rep == 0:
            self.doctor_venv = os.path.join(self.work, "venv-doctor")
            shutil.rmtree(self.doctor_venv, ignore_errors=True)
            os.rename(v, self.doctor_venv)
        shutil.rmtree(v, ignore_errors=True)

    def run(self):
        start = time.monotonic()
        names = list(self.tools)
        doctor = None
        took = {}  # seconds of each tool's last chain: the next repetition's estimate
        for rep in range(self.a.reps):
            order = names[rep % len(names):] + names[:rep % len(names)]  # alternate who goes first
            for name in order:
                if name == "pip" and rep >= self.a.pip_reps:
                    continue
                print(f"rep {rep + 1}: {name}", file=sys.stderr, flush=True)
                t = time.monotonic()
                self.chain(self.tools[name], rep)
                took[name] = time.monotonic() - t
            if doctor is None:
                doctor = self.doctor()  # after the first repetition made its venv, before the budget can run out
            summarize(self, doctor)  # results so far, so a run stopped from outside still leaves them
            spent = time.monotonic() - start
            upcoming = sum(v for k, v in took.items() if k != "pip" or rep + 1 < self.a.pip_reps)
            if self.a.budget and spent + upcoming > self.a.budget:
                print(f"budget: stopping after {rep + 1} repetitions ({spent:.0f} s)", file=sys.stderr)
                break
        return doctor if doctor is not None else self.doctor()

    def doctor(self):
        """5: envfix doctor (warm) against importing torch for its architecture list."""
        py = self.a.doctor_python or os.path.join(getattr(self, "doctor_venv", ""), "bin", "python")
        out = {"python": py}
        envfix = self.tools.get("envfix")
        runs = max(5, self.a.reps * 3)
        if envfix and os.path.exists(py):
            argv = [envfix.exe, "doctor", "--python", py]
            quiet(argv, envfix.env())  # fills the caches, as on a user's machine after the first run
            try:
                out["envfix doctor"] = [run_timed(argv, envfix.env(), self.log("doctor")) for _ in range(runs)]
            except RuntimeError:  # doctor's exit code says what it found; time it all the same
                out["envfix doctor"] = [self.timed_any(argv, envfix.env()) for _ in range(runs)]
        else:
            out["envfix doctor"] = {"skipped": "no envfix or no interpreter"}
        code = "import torch; print(torch.cuda.get_arch_list())"
        if os.path.exists(py) and quiet([py, "-c", code]).returncode == 0:
            out["import torch"] = [run_timed([py, "-c", code], self.env, self.log("doctor")) for _ in range(max(3, self.a.reps))]
        else:
            out["import torch"] = {"skipped": f"torch does not import in {py} (a synthetic stack holds no real torch)"}
        return out

    def timed_any(self, argv, env):
        t = time.monotonic()
        p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, ru = os.wait4(p.pid, 0)
        return {"seconds": time.monotonic() - t, "cpu": ru.ru_utime + ru.ru_stime, "rss_mib": ru.ru_maxrss / 1024}


# ---------------------------------------------------------------- summary


def stats(runs):
    ok = [r["seconds"] for r in runs if r.get("ok", True) and "seconds" in r]
    if not ok:
        why = next((r.get("skipped") or r.get("error") for r in runs), "not run")
        return {"n": 0, "why": why}
    return {"n": len(ok), "median": statistics.median(ok), "min": min(ok), "max": max(ok),
            "cpu": statistics.median(r["cpu"] for r in runs if "cpu" in r),
            "rss_mib": max(r["rss_mib"] for r in runs if "rss_mib" in r),
            "anon_mib": max((r.get("anon_mib", 0) for r in runs), default=0),
            "requests": statistics.median(r.get("requests", 0) for r in runs),
            "not_modified": statistics.median(r.get("not_modified", 0) for r in runs),
            "background_s": statistics.median(r.get("background_s", 0) for r in runs)}


def fmt(s):
    if s["n"] == 0:
        return f"skipped: {s['why']}"
    spread = f" ({s['min']:.2f}–{s['max']:.2f}, n={s['n']})" if s["n"] > 1 else " (n=1)"
    return f"{s['median']:.3f} s{spread}" if s["median"] < 1 else f"{s['median']:.2f} s{spread}"


def ratio(a, b):
    return f"{a['median'] / b['median']:.2f}" if a["n"] and b["n"] else "–"


def summarize(b, doctor):
    summary = {m: {t: stats(runs) for t, runs in by.items()} for m, by in b.results.items()}
    doc = {"schema_version": 1, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "machine": b.a.machine, "cpus": os.cpu_count(), "kernel": platform.release(), "stack": b.stack.get("what"),
           "stack_files": b.stack.get("files"), "stack_bytes": b.stack.get("bytes"),
           "variants": b.stack["order"], "mode": "index over HTTP" if b.index_mode else "local wheel files",
           "page_cache_dropped": b.dropped, "skipped_tools": b.skipped,
           "versions": {t.name: getattr(t, "version", None) for t in b.tools.values()},
           "summary": summary, "runs": b.results, "doctor": doctor}
    with open(os.path.join(b.a.out, "results.json"), "w") as f:
        json.dump(doc, f, indent=1)
    tools = list(b.tools)
    lines = [f"# envfix, pip and uv: {doc['machine']}, {doc['date']}", "",
             f"Stack: {doc['stack']} ({doc['stack_files']} files, {doc['stack_bytes'] / 1e9:.2f} GB installed); "
             f"{doc['variants'][0]} → {doc['variants'][1]}. Mode: {doc['mode']}. {doc['cpus']} CPUs. "
             f"Page cache dropped before cold runs: {doc['page_cache_dropped']}. "
             f"Versions: {', '.join(f'{k} {v}' for k, v in doc['versions'].items() if v)}.", ""]
    for t, why in b.skipped.items():
        lines.append(f"- {t}: skipped: {why}")
    lines += ["", "Wall time, median (min–max, runs):", "",
              "| measure | " + " | ".join(tools) + " | envfix/uv | envfix/pip |",
              "|---|" + "---|" * (len(tools) + 2)]
    for m in MEASURES:
        s = summary[m]
        e = s.get("envfix", {"n": 0})
        lines.append(f"| {m} | " + " | ".join(fmt(s[t]) for t in tools) +
                     f" | {ratio(e, s['uv']) if 'uv' in s else '–'} | {ratio(e, s['pip']) if 'pip' in s else '–'} |")
    lines.append("| peak RSS, cold | " + " | ".join(f"{summary['cold'][t]['rss_mib']:.0f} MiB" if summary['cold'][t]['n'] else "–"
                                                   for t in tools) + " | | |")
    lines.append("| peak anonymous RSS, cold (sampled) | " + " | ".join(f"{summary['cold'][t]['anon_mib']:.0f} MiB" if summary['cold'][t]['n'] else "–"
                                                                 for t in tools) + " | | |")
    lines.append("| CPU, cold (user+sys) | " + " | ".join(f"{summary['cold'][t]['cpu']:.1f} s" if summary['cold'][t]['n'] else "–"
                                                       for t in tools) + " | | |")
    lines += ["", "CPU time (user + system of the tool and its children), median; the machine's load does not inflate it:", "",
              "| measure | " + " | ".join(tools) + " |", "|---|" + "---|" * len(tools)]
    for m in MEASURES:
        lines.append(f"| {m} | " + " | ".join(f"{summary[m][t]['cpu']:.2f} s" if summary[m][t]["n"] else "–" for t in tools) + " |")
    lines += ["", "Requests to the index, median per step (of them answered 304 Not Modified):", "",
              "| measure | " + " | ".join(tools) + " |", "|---|" + "---|" * len(tools)]
    for m in MEASURES:
        lines.append(f"| {m} | " + " | ".join(f"{summary[m][t]['requests']:.0f} ({summary[m][t]['not_modified']:.0f})"
                                              if summary[m][t]["n"] else "–" for t in tools) + " |")
    if "envfix" in tools:
        lines += ["", "envfix's work left running after it exited (ready trees made in the background; the harness"
                  " waits for it before the next run), median per step: " +
                  ", ".join(f"{m} {summary[m]['envfix']['background_s']:.2f} s" for m in MEASURES if summary[m]["envfix"]["n"])]
    lines += ["", f"Doctor against importing torch ({doctor['python']}):", ""]
    for k in ("envfix doctor", "import torch"):
        v = doctor[k]
        lines.append(f"- {k}: " + (f"skipped: {v['skipped']}" if isinstance(v, dict) else fmt(stats(v)) +
                                   f", peak RSS {max(r['rss_mib'] for r in v):.0f} MiB"))
    with open(os.path.join(b.a.out, "results.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--index", required=True)
    ap.add_argument("--envfix", default=os.path.join(ROOT, "build", "envfix"))
    ap.add_argument("--python", default="/usr/bin/python3", help="makes the venvs (and runs pip)")
    ap.add_argument("--pip-python", default=None, help="an interpreter with pip, which installs into the venvs (default --python)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--pip-reps", type=int, default=None, help="repetitions for pip (default --reps)")
    ap.add_argument("--budget", type=float, default=0, help="start no new repetition after this many seconds")
    ap.add_argument("--tools", default="envfix,pip,uv")
    ap.add_argument("--mode", choices=["files", "index"], default="index",
                    help="index: every tool installs from the index over HTTP; files: the same local wheel files")
    ap.add_argument("--standin", choices=["auto", "yes", "no"], default="auto",
                    help="envfix plans for a stand-in H200 (tests/standin, built with the tests) where no NVIDIA GPU is"
                         " (auto: when /dev/nvidiactl is missing)")
    ap.add_argument("--doctor-python", default=None)
    ap.add_argument("--work", default=None, help="venvs and caches (default: beside --index)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--machine", default=platform.node())
    a = ap.parse_args()
    a.pip_reps = a.reps if a.pip_reps is None else a.pip_reps
    a.work = a.work or os.path.join(os.path.dirname(os.path.abspath(a.index)), "compare-work")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    a.out = a.out or os.path.join(ROOT, "bench", "results", f"{stamp}-{a.machine}")
    b = Bench(a)
    print(f"serving {a.index} at {b.url}; tools: {', '.join(b.tools)}; "
          + (f"skipped: {b.skipped}; " if b.skipped else "") + ("index" if b.index_mode else "local files"), file=sys.stderr)
    doctor = b.run()
    summarize(b, doctor)
    b.httpd.shutdown()


if __name__ == "__main__":
    main()
