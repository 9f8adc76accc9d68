#!/usr/bin/env bash
# Measures the app profiles, app folder search and the check of a framework change in-process
# (bench/apps_bench.cpp) and `envfix apps` end to end (process start included), on a home folder
# with one install of each app (made under bench/out/apps/home). Figures go to
# docs/performance.md, "Other benches".
#   bench/apps.sh [build dir]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
home=bench/out/apps/home
ninja -C "$build" apps_bench envfix >/dev/null
mkdir -p "$home"
"$build/tests/apps/apps_bench" "$home"

python3 - "$build/envfix" "$home" <<'PY'
import os, statistics, subprocess, sys, tempfile, time
envfix, home = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
cache = tempfile.mkdtemp()
env = dict(os.environ, HOME=home, ENVFIX_CACHE_DIR=cache)
cmds = {
    "envfix apps": ["apps"],
    "envfix apps --search --json (7 folders, warm facts cache)": ["apps", "--search", "--json"],
    "envfix apps --path ~/ComfyUI --torch 2.8.0+cu128": ["apps", "--path", home + "/ComfyUI", "--torch", "2.8.0+cu128"],
    "envfix envs --app comfyui --no-home (search, warm cache)": ["envs", "--app", "comfyui", "--no-home"],
    "envfix --version (process start only)": ["--version"],
}
for label, args in cmds.items():
    subprocess.run([envfix] + args, stdout=subprocess.DEVNULL, env=env, cwd=home)  # fills the facts cache
    runs = []
    for _ in range(20):
        t0 = time.perf_counter()
        subprocess.run([envfix] + args, stdout=subprocess.DEVNULL, env=env, cwd=home)
        runs.append((time.perf_counter() - t0) * 1000)
    print("%-62s %7.2f ms (median of 20)" % (label, statistics.median(runs)))
PY
