#!/usr/bin/env python3
"""envfix.exe under Wine beside the Linux envfix on the same machine: install, rollback, doctor.

    bench/wine_compare.py [--reps N] [--torch-lib BYTES]

One test index (tests/tools/mkindex.py: the cu128 torch 2.7.0 stack for cp311 Linux and cp312
win_amd64, torch carrying a compressible library of --torch-lib bytes) served on 127.0.0.1; a
Linux venv (Debian's python3) and a ComfyUI_windows_portable layout read from its files (the
Windows tests' python_embeded); the stand-in driver on each side (one RTX 5090). Per side: the
first install into an empty cache (cold), then N times rollback and install again (warm), and
doctor. Times are wall clock around each command (Wine's process start included) and envfix's
own "done in" for installs. Wine is not Windows: these say nothing about Windows' own speed.
Needs build/envfix, build-windows/exe/envfix.exe and wine64 (docs/windows.md).
"""
import argparse, os, re, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WINE = "/usr/lib/wine/wine64"
GPU = "name=NVIDIA GeForce RTX 5090,cc=12.0,mem=32607MiB,sms=170,bus=0000:01:00.0,uuid=GPU-50905090-1111-4000-8000-000000005090"


def winpath(p):
    return "Z:" + os.path.abspath(p).replace("/", "\\")


def timed(argv, env, verdict=False):
    t = time.monotonic()
    r = subprocess.run(argv, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t
    # doctor's exit code is its verdict (20-29: a problem found, docs/doctor.md)
    if r.returncode != 0 and not (verdict and 20 <= r.returncode < 30):
        sys.exit("%s failed (%d):\n%s%s" % (" ".join(argv[:3]), r.returncode, r.stdout, r.stderr))
    done = re.search(r"done in ([0-9.]+) s", r.stdout + r.stderr)
    return wall, float(done.group(1)) if done else None


def portable(root):
    emb = os.path.join(root, "ComfyUI_windows_portable", "python_embeded")
    os.makedirs(os.path.join(emb, "Lib", "site-packages"))
    os.makedirs(os.path.join(root, "ComfyUI_windows_portable", "ComfyUI"))
    shutil.copy(os.path.join(ROOT, "tests/fixtures/fatbin/win_short_names_86.dll"), os.path.join(emb, "python.exe"))
    open(os.path.join(emb, "python312.zip"), "wb").write(b"PK\x05\x06" + bytes(18))
    open(os.path.join(emb, "python312.dll"), "wb").write(b"MZ")
    open(os.path.join(emb, "python312._pth"), "w").write("python312.zip\n.\nLib/site-packages\n../ComfyUI\nimport site\n")
    open(os.path.join(root, "ComfyUI_windows_portable", "ComfyUI", "main.py"), "w").write("# ComfyUI\n")
    return os.path.join(root, "ComfyUI_windows_portable")


def side(name, cmd, target, env, index, reps):
    idx = ["--pytorch-index", index, "--index-url", index + "cu128/", "--gpu", "RTX 5090", "--driver", "570.133.07",
           "--variant", "cu128", "--no-verify"]
    out = {}
    out["install cold"] = [timed(cmd + ["install"] + target + idx, env)]
    warm, back = [], []
    for _ in range(reps):
        back.append(timed(cmd + ["rollback"] + target, env))
        warm.append(timed(cmd + ["install"] + target + idx, env))
    out["rollback"], out["install warm"] = back, warm
    out["doctor"] = [timed(cmd + ["doctor"] + target, env, verdict=True) for _ in range(reps)]
    for what, runs in out.items():
        walls = [w for w, _ in runs]
        own = [d for _, d in runs if d is not None]
        print("%-8s %-13s wall %6.3f s (%.3f-%.3f)%s" % (name, what, statistics.median(walls), min(walls), max(walls),
              "  envfix's own %.3f s" % statistics.median(own) if own else ""), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--torch-lib", type=int, default=50_000_000)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="wine-compare-")
    try:
        subprocess.run([sys.executable, os.path.join(ROOT, "tests/tools/mkindex.py"), os.path.join(tmp, "index"), "--variants", "cu128",
                        "--torch", "2.7.0", "--pythons", "cp311,cp312", "--platforms", "manylinux_2_28_x86_64,win_amd64",
                        "--torch-lib", str(a.torch_lib)], check=True, stdout=subprocess.DEVNULL)
        server = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests/tools/index_server.py"), "--root", os.path.join(tmp, "index")],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        port = re.search(r"PORT (\d+)", server.stdout.readline()).group(1)
        index = "http://127.0.0.1:%s/" % port
        base = {k: v for k, v in os.environ.items() if not k.startswith("ENVFIX_")}
        base.update({"ENVFIX_STANDIN_GPUS": GPU, "ENVFIX_STANDIN_DRIVER": "570.133.07", "ENVFIX_STANDIN_CUDA": "12080", "ENVFIX_LANG": "en"})

        linux = dict(base, ENVFIX_CACHE_DIR=os.path.join(tmp, "l-cache"), ENVFIX_DATA_DIR=os.path.join(tmp, "l-data"),
                     ENVFIX_CONFIG_DIR=os.path.join(tmp, "l-config"),
                     ENVFIX_LIBCUDA=os.path.join(ROOT, "build/tests/standin/full/libcuda.so.1"),
                     ENVFIX_LIBNVML=os.path.join(ROOT, "build/tests/standin/nvml/libnvidia-ml.so.1"))
        subprocess.run(["python3", "-m", "venv", os.path.join(tmp, "venv")], check=True)
        side("linux", [os.path.join(ROOT, "build/envfix")], ["--env", os.path.join(tmp, "venv")], linux, index, a.reps)

        exe_dir = os.path.join(ROOT, "build-windows/exe")
        wine = dict(base, WINEPREFIX=os.path.join(tmp, "pfx"), WINEDEBUG="-all", LC_CTYPE="C.UTF-8",
                    ENVFIX_CACHE_DIR=winpath(os.path.join(tmp, "w-cache")), ENVFIX_DATA_DIR=winpath(os.path.join(tmp, "w-data")),
                    ENVFIX_CONFIG_DIR=winpath(os.path.join(tmp, "w-config")),
                    ENVFIX_LIBCUDA=winpath(os.path.join(exe_dir, "standin/nvcuda.dll")),
                    ENVFIX_LIBNVML=winpath(os.path.join(exe_dir, "standin/nvml.dll")))
        # One server for every run, started first: a server a captured run started would hold its pipes.
        server_keep = subprocess.Popen([os.path.join(os.path.dirname(WINE), "wineserver"), "-p", "-f"], env=wine,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
        subprocess.run([WINE, "wineboot", "-i"], env=wine, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        app = portable(tmp)
        side("wine", [WINE, os.path.join(exe_dir, "envfix.exe")], ["--app", "comfyui", "--path", winpath(app)], wine, index, a.reps)
        subprocess.run([os.path.join(os.path.dirname(WINE), "wineserver"), "-k"], env=wine)
        server_keep.wait()
        server.stdin.close()
        server.wait()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
