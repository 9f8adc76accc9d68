#!/usr/bin/env bash
# Measures the matrix load and policy (in-process, bench/matrix_bench.cpp) and `envfix matrix`
# end to end (process start included). Figures go to docs/performance.md, "Matrix and policy".
#   bench/matrix.sh [build dir]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
ninja -C "$build" matrix_bench envfix >/dev/null
"$build/tests/matrix/matrix_bench"

# End to end: median wall time of 30 runs, each loading the matrix, resolving a GPU name and
# judging every build for it.
python3 - "$build/envfix" <<'PY'
import statistics, subprocess, sys, time
cmds = {
    "envfix matrix --gpu 'RTX 5090' --driver 570.133.07 --json": ["matrix", "--gpu", "RTX 5090", "--driver", "570.133.07", "--json"],
    "envfix matrix (whole table)": ["matrix"],
    "envfix --version (process start only)": ["--version"],
}
for label, args in cmds.items():
    runs = []
    for _ in range(30):
        t0 = time.perf_counter()
        subprocess.run([sys.argv[1]] + args, stdout=subprocess.DEVNULL, check=True)
        runs.append((time.perf_counter() - t0) * 1000)
    print("%-55s %7.2f ms (median of 30)" % (label, statistics.median(runs)))
PY
