#!/usr/bin/env bash
# Wall time of `envfix probe` on a machine without an NVIDIA driver (target: under 50 ms).
#   bench/probe.sh [path/to/envfix] [runs]        default build/envfix, 200 runs
# On a machine that has a driver, set ENVFIX_BENCH_FORCE_NO_DRIVER=1: envfix is then pointed at
# missing driver libraries, files and tools, which is what a driverless machine looks like to it.
# Uses hyperfine when installed; otherwise times each run with date +%s%N and prints
# min / median / mean / p95 / max in milliseconds.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/envfix}
runs=${2:-200}
[[ -x $bin ]] || { echo "no $bin: build first (cmake -S . -B build -G Ninja && ninja -C build envfix)" >&2; exit 2; }

if [[ ${ENVFIX_BENCH_FORCE_NO_DRIVER:-0} == 1 ]]; then
  export ENVFIX_LIBCUDA=/nonexistent/libcuda.so.1 ENVFIX_LIBNVML=/nonexistent/libnvidia-ml.so.1
  export ENVFIX_SYSROOT=/nonexistent ENVFIX_NVIDIA_SMI=/nonexistent/nvidia-smi
fi

# The answer this measures: exit 10 (no-driver) on a machine without a driver.
set +e
"$bin" probe >/dev/null 2>&1
rc=$?
set -e
echo "envfix probe exits $rc here (10 = no NVIDIA driver)"

if command -v hyperfine >/dev/null; then
  exec hyperfine --warmup 10 --runs "$runs" -N -i "$bin probe"
fi

"$bin" probe >/dev/null 2>&1 || true  # warm the page cache
times=()
for ((i = 0; i < runs; i++)); do
  t0=$(date +%s%N)
  "$bin" probe >/dev/null 2>&1 || true
  t1=$(date +%s%N)
  times+=($(((t1 - t0) / 1000)))  # microseconds
done
printf '%s\n' "${times[@]}" | sort -n | awk -v runs="$runs" '
  { v[NR] = $1; sum += $1 }
  END {
    p95 = v[int(NR * 0.95) > 0 ? int(NR * 0.95) : 1]
    printf "envfix probe, %d runs: min %.1f ms, median %.1f ms, mean %.1f ms, p95 %.1f ms, max %.1f ms\n",
           runs, v[1] / 1000, v[int((NR + 1) / 2)] / 1000, sum / NR / 1000, p95 / 1000, v[NR] / 1000
  }'
