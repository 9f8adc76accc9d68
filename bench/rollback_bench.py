#!/usr/bin/env python3
"""Variant switch and rollback of a torch-shaped environment: envfix against pip reinstalling the
previous version. docs/performance.md ("Snapshots and rollback") has the figures.

Usage: bench/rollback_bench.py [--files 15000] [--big-mb 600,300,150,80] [--runs 5]
                               [--envfix build/envfix] [--python /usr/bin/python3] [--work DIR]
                               [--no-pip] [--json]

Two wheels of the synthetic torch-shaped package from bench/install_bench.py: "A" (2.11.0) and
"B" (2.11.1, its dist-info renamed and 1 % of its small files changed, the rest identical, as a
cu126 -> cu128 build of one release mostly is). Into one venv: envfix installs A, then B (the
switch; a snapshot of A is taken first), then `envfix rollback` is timed --runs times, going
back and forth between A and B (each rollback undoes the one before). pip's counterpart is
`pip install --no-deps --force-reinstall A` into its own venv holding B. Every envfix run
checks afterwards that the installed version is the expected one.
"""
import argparse, base64, hashlib, json, os, shutil, statistics, subprocess, sys, tempfile, time, zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import install_bench  # noqa: E402  (build_wheel, timed)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def make_variant(src, dst):
    """B from A: 2.11.1, every 100th small file changed; large libraries identical."""
    old_di, new_di = "torchlike-2.11.0.dist-info", "torchlike-2.11.1.dist-info"
    entries = []
    with zipfile.ZipFile(src) as z:
        for i, info in enumerate(z.infolist()):
            name = info.filename
            if name.endswith("/RECORD"):
                continue
            data = z.read(name)
            if name.startswith(old_di):
                name = new_di + name[len(old_di):]
                data = data.replace(b"Version: 2.11.0", b"Version: 2.11.1")
            elif i % 100 == 0 and not name.endswith(".so"):
                data += b"# changed in 2.11.1\n"
            entries.append((name, data, info.external_attr))
    record = "".join(f"{n},{record_hash(d)},{len(d)}\n" for n, d, _ in entries) + f"{new_di}/RECORD,,\n"
    entries.append((f"{new_di}/RECORD", record.encode(), (0o644 | 0o100000) << 16))
    with zipfile.ZipFile(dst + ".part", "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, data, attr in entries:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = attr
            z.writestr(info, data)
    os.replace(dst + ".part", dst)


def run(argv, env=None):
    t = time.perf_counter()
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"{argv[0]} failed ({p.returncode}): {p.stderr[-2000:]}")
    return dt, p.stdout


def installed_version(venv):
    sp = [os.path.join(r, d) for r, ds, _ in os.walk(os.path.join(venv, "lib")) for d in ds if d == "site-packages"][0]
    return [d for d in os.listdir(sp) if d.startswith("torchlike-")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=15000)
    ap.add_argument("--big-mb", default="600,300,150,80")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--envfix", default=os.path.join(ROOT, "build", "envfix"))
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "envfix-rollback-bench"))
    ap.add_argument("--no-pip", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    tag = subprocess.run([a.python, "-c", "import sys; print(f'cp{sys.version_info[0]}{sys.version_info[1]}')"],
                         stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
    big = [int(x) for x in a.big_mb.split(",") if x]
    wa = os.path.join(a.work, f"torchlike-2.11.0-{tag}-{tag}-linux_x86_64.whl")
    wb = os.path.join(a.work, f"torchlike-2.11.1-{tag}-{tag}-linux_x86_64.whl")
    stamp = os.path.join(a.work, f"wheels-{a.files}-{a.big_mb}.stamp")
    if not (os.path.exists(wa) and os.path.exists(wb) and os.path.exists(stamp)):
        install_bench.build_wheel(wa, a.files, big, tag)
        make_variant(wa, wb)
        open(stamp, "w").close()

    env = dict(os.environ, ENVFIX_CACHE_DIR=os.path.join(a.work, "cache"), ENVFIX_DATA_DIR=os.path.join(a.work, "data"))
    venv = os.path.join(a.work, "venv")
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([a.python, "-m", "venv", "--without-pip", venv], check=True)
    res = {"files": a.files, "big_mb": big}
    res["envfix_install_a"], _ = run([a.envfix, "install", "--env", venv, wa], env)
    res["envfix_switch_to_b"], _ = run([a.envfix, "install", "--env", venv, wb], env)
    times, snaps, moving = [], [], []
    expect = "torchlike-2.11.0.dist-info"
    for _ in range(a.runs):
        dt, out = run([a.envfix, "--json", "rollback", "--env", venv], env)
        j = json.loads(out)
        times.append(dt)
        snaps.append(j["seconds_snapshot"])
        moving.append(j["seconds_moving"])
        got = installed_version(venv)
        if got != [expect]:
            sys.exit(f"after rollback: {got}, expected {expect}")
        expect = "torchlike-2.11.1.dist-info" if expect.endswith("2.11.0.dist-info") else "torchlike-2.11.0.dist-info"
    res["envfix_rollback"] = {"median": statistics.median(times), "min": min(times), "max": max(times),
                              "snapshot_median": statistics.median(snaps), "moving_median": statistics.median(moving)}
    if not a.no_pip:
        pvenv = os.path.join(a.work, "venv-pip")
        shutil.rmtree(pvenv, ignore_errors=True)
        subprocess.run([a.python, "-m", "venv", pvenv], check=True)
        pip = [os.path.join(pvenv, "bin", "python"), "-m", "pip", "--disable-pip-version-check", "-q"]
        run(pip + ["install", "--no-deps", "--no-index", wb])
        ptimes = []
        for i in range(max(1, a.runs // 2)):
            dt, _ = run(pip + ["install", "--no-deps", "--no-index", "--force-reinstall", wa if i % 2 == 0 else wb])
            ptimes.append(dt)
        res["pip_reinstall_previous"] = {"median": statistics.median(ptimes), "min": min(ptimes), "max": max(ptimes)}
    if a.json:
        print(json.dumps(res, indent=1))
        return
    print(f"torch-shaped wheel: {a.files} small files + {big} MB libraries")
    print(f"envfix install A:            {res['envfix_install_a']:.2f} s")
    print(f"envfix switch A -> B:        {res['envfix_switch_to_b']:.2f} s (snapshot of A included)")
    r = res["envfix_rollback"]
    print(f"envfix rollback (median of {a.runs}): {r['median']:.3f} s (min {r['min']:.3f}, max {r['max']:.3f}; "
          f"snapshot {r['snapshot_median']:.3f} s, moving {r['moving_median'] * 1000:.1f} ms)")
    if "pip_reinstall_previous" in res:
        p = res["pip_reinstall_previous"]
        print(f"pip --force-reinstall previous (median): {p['median']:.2f} s  ->  envfix/pip = {r['median'] / p['median']:.3f}")


if __name__ == "__main__":
    main()
