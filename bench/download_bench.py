#!/usr/bin/env python3
"""Download throughput of envfix's downloader from a local server (bench/compare.py's, which sends
files with sendfile), against curl's command line on the same files. docs/performance.md.

Usage: bench/download_bench.py [--mb 400] [--files 4] [--parallel 4] [--build build]
Makes FILES random files of MB megabytes each (incompressible, like wheels' libraries), then runs
build/tests/standards/download_bench (ninja -C build download_bench) three times and curl once."""
import argparse, hashlib, os, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=400)
    ap.add_argument("--files", type=int, default=4)
    ap.add_argument("--parallel", type=int, default=4)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    a = ap.parse_args()
    exe = os.path.join(a.build, "tests", "network", "download_bench")
    work = tempfile.mkdtemp(prefix="envfix-dl-")
    try:
        files = os.path.join(work, "files")
        os.makedirs(files)
        args = []
        for i in range(a.files):
            p = os.path.join(files, f"f{i}.bin")
            with open(p, "wb") as f:
                for _ in range(a.mb):
                    f.write(os.urandom(1 << 20))
            with open(p, "rb") as f:
                args += [None, hashlib.file_digest(f, "sha256").hexdigest(), str(os.path.getsize(p))]
        httpd, url = compare.serve(work)
        base = url[: -len("simple/")]
        for i in range(a.files):
            args[3 * i] = f"{base}files/f{i}.bin"
        for _ in range(3):
            dest = os.path.join(work, "dest")
            shutil.rmtree(dest, ignore_errors=True)
            os.makedirs(dest)
            subprocess.run([exe, dest, str(a.parallel)] + args, check=True)
        t = time.monotonic()
        procs = [subprocess.Popen(["curl", "-s", "-o", "/dev/null", args[3 * i]]) for i in range(a.files)]
        for p in procs:
            p.wait()
        s = time.monotonic() - t
        print(f"curl, {a.files} at once to /dev/null: {a.files * a.mb * 1.048576:.0f} MB in {s:.3f} s: {a.files * a.mb * 1.048576 / s:.0f} MB/s")
        httpd.shutdown()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
