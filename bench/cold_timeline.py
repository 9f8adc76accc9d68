#!/usr/bin/env python3
"""One cold `envfix install` from an index folder served on 127.0.0.1, with -vv, its memory sampled
every 5 ms: each stderr line with the second it came, the peaks of VmRSS, RssAnon and the thread
count and when they happened, and the anonymous memory over time. Shows which phase holds the peak
(the unpacking while downloading, or the install after it): docs/performance.md, "Peak memory of a
cold install". Standard library only.

Usage: bench/cold_timeline.py --index DIR [--envfix build/envfix] [--work DIR] [-- EXTRA INSTALL ARGS]
--index is a folder made by bench/real_stack.py or bench/synth_stack.py (simple/, files/, stack.json).
Where no NVIDIA GPU is, the tests' stand-in H200 answers (bench/standin.py).
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare, standin  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--index", required=True)
    ap.add_argument("--envfix", default=os.path.join(compare.ROOT, "build", "envfix"))
    ap.add_argument("--python", default="/usr/bin/python3", help="makes the venv")
    ap.add_argument("--work", default=None)
    ap.add_argument("extra", nargs="*", help="more install arguments, after --")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="envfix-timeline.")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    server, url = compare.serve(a.index)
    stack = json.load(open(os.path.join(a.index, "stack.json")))
    req = stack["variants"][stack["order"][0]]["requirements"]
    env = dict(os.environ, ENVFIX_CACHE_DIR=os.path.join(work, "c"), ENVFIX_DATA_DIR=os.path.join(work, "d"))
    if not shutil.which("nvidia-smi"):
        env.update(standin.h200_env())
    venv = os.path.join(work, "v")
    subprocess.run([a.python, "-m", "venv", "--without-pip", venv], check=True)
    os.sync()
    t0 = time.time()
    p = subprocess.Popen([a.envfix, "install", "-vv", "--no-verify", "--env", venv, "--torch-from", "index", "--index-url", url,
                          "-y", *a.extra, *req], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    samples = []

    def sample():
        while p.poll() is None:
            try:
                st = open(f"/proc/{p.pid}/status").read()
                field = lambda k: int(st.split(k + ":")[1].split()[0])
                samples.append((time.time() - t0, field("VmRSS"), field("RssAnon"), field("Threads")))
            except (OSError, IndexError, ValueError):
                pass
            time.sleep(0.005)

    th = threading.Thread(target=sample)
    th.start()
    for line in p.stdout:
        if "/simple/" not in line:  # the index pages, one per project
            print(f"{time.time() - t0:6.2f} {line.rstrip()[:160]}")
    p.wait()
    th.join()
    server.shutdown()
    if not samples:
        sys.exit("no samples: the install ended at once")
    rss = max(samples, key=lambda s: s[1])
    anon = max(samples, key=lambda s: s[2])
    threads = max(samples, key=lambda s: s[3])
    print(f"exit {p.returncode}; wall {time.time() - t0:.2f} s; peak VmRSS {rss[1] / 1024:.0f} MiB at {rss[0]:.2f} s; "
          f"peak RssAnon {anon[2] / 1024:.0f} MiB at {anon[0]:.2f} s; peak threads {threads[3]} at {threads[0]:.2f} s")
    step = max(1, len(samples) // 40)
    print("RssAnon (s:MiB): " + " ".join(f"{s[0]:.1f}:{s[2] // 1024}" for s in samples[::step]))
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
