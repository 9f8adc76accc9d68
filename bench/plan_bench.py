#!/usr/bin/env python3
"""Times `envfix plan` (docs/performance.md, "Plan"): --offline for this machine (stand-in H200
driver, a real venv whose facts are cached) and for another machine, and online against a local
test index (mkindex.py, served by index_server.py) with a cold and a warm HTTP cache.

Usage: bench/plan_bench.py [--build build] [--runs 30]
Builds envfix and the stand-in driver libraries first; works in bench/out/plan/.
"""
import argparse, os, resource, shutil, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import standin  # noqa: E402


def median_ms(cmd, env, runs, before=None):
    """Median and p95 wall time, and median CPU time (user + system of envfix and its children,
    which the machine's load does not inflate)."""
    times, cpu = [], []
    for _ in range(runs):
        if before:
            before()
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append((time.perf_counter() - t0) * 1000)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
        if r.returncode != 0:
            sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr.decode()}")
    times.sort()
    p95 = times[int(len(times) * 0.95) - 1] if len(times) >= 20 else times[-1]
    return statistics.median(times), p95, statistics.median(cpu)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=30)
    a = ap.parse_args()
    build = os.path.join(ROOT, a.build)
    subprocess.run(["ninja", "-C", build, "envfix", "envfix_standin"], check=True, stdout=subprocess.DEVNULL)
    envfix = os.path.join(build, "envfix")
    out = os.path.join(ROOT, "bench", "out", "plan")
    os.makedirs(out, exist_ok=True)
    venv = os.path.join(out, "venv")
    if not os.path.exists(venv):
        subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", venv], check=True)
    cache = os.path.join(out, "cache")
    env = dict(standin.clean_env(), **standin.h200_env(build, nowhere=os.path.join(out, "no")))
    env.update({"ENVFIX_CACHE_DIR": cache, "ENVFIX_CONFIG_DIR": os.path.join(out, "config"), "HOME": out})
    python = os.path.join(venv, "bin", "python")
    # The first run fills the interpreter facts cache; plans reuse it, as on a user's machine.
    subprocess.run([envfix, "plan", "--offline", "--python", python], env=env, check=True, stdout=subprocess.DEVNULL)
    rows = []
    cases = {
        "plan --offline --python VENV (H200 stand-in, facts cached)": [envfix, "plan", "--offline", "--python", python],
        "plan --offline --json --python VENV": [envfix, "plan", "--offline", "--json", "--python", python],
        "plan --offline --gpu 'RTX 5090' --driver 570.133.07 --python 3.12": [envfix, "plan", "--offline", "--gpu", "RTX 5090",
                                                                           "--driver", "570.133.07", "--python", "3.12"],
        "envfix --version (process start only)": [envfix, "--version"],
    }
    for label, cmd in cases.items():
        rows.append((label,) + median_ms(cmd, env, a.runs))

    # Online, against the test index on 127.0.0.1.
    index = os.path.join(out, "index")
    if not os.path.exists(os.path.join(index, "manifest.json")):
        subprocess.run([sys.executable, os.path.join(ROOT, "tests/tools/mkindex.py"), index, "--pythons", "cp311"],
                       check=True, stdout=subprocess.DEVNULL)
    server = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests/tools/index_server.py"), "--root", index],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    port = server.stdout.readline().split()[1]
    root = f"http://127.0.0.1:{port}/"
    online = [envfix, "plan", "--json", "--python", python, "--pytorch-index", root, "--index-url", root + "cu130/"]
    runs = max(5, a.runs // 3)
    rows.append(("plan online, cold HTTP cache (H200: cu130, 31 wheels)",)
                + median_ms(online, env, runs, before=lambda: shutil.rmtree(os.path.join(cache, "http"), ignore_errors=True)))
    rows.append(("plan online, warm HTTP cache (pages revalidated: 304)",) + median_ms(online, env, runs))
    server.stdin.close()
    server.wait()
    print("load average: %.1f %.1f %.1f" % os.getloadavg())
    for label, med, p95, cpu in rows:
        print("%-66s wall median %7.1f ms  p95 %7.1f ms  CPU %6.1f ms" % (label, med, p95, cpu))


if __name__ == "__main__":
    main()
