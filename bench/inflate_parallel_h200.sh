#!/usr/bin/env bash
# The parallel inflater alone on the GPU machine's two largest torch libraries, deflated at level 1
# as repack-index.py packs them: two builds of bench/inflate_parallel_bench.cpp alternating, REPS
# runs each, with WORKERS workers (docs/inflate-parallel.md).
# Usage (repository root, after ../shared/tools/carry-to-h200 build/tests/lowmem/inflate_parallel_bench
#   and the other build's copy as .h200/bin/inflate_parallel_bench-old):
#   bench/inflate_parallel_h200.sh OUT_DIR [REPS=3] [WORKERS=8]
# HANDOVER=F: instead, ISA-L alone against ISA-L taken over by WORKERS workers once F of the stream
# is decoded (stream_zip_entry_handing_over), on libtorch_cuda.so (docs/inflate-parallel.md,
# "Workers freed take over a stream still running").
set -euo pipefail
OUT=${1:?usage: bench/inflate_parallel_h200.sh OUT_DIR [REPS] [WORKERS]}
REPS=${2:-3}
WORKERS=${3:-8}
LIB=${LIB:-/opt/torch/.venv/lib/python3.12/site-packages/torch/lib}
mkdir -p "$OUT"
if [[ -n "${HANDOVER:-}" ]]; then
  for ((r = 1; r <= REPS; r++)); do
    echo "== libtorch_cuda.so handover at $HANDOVER run $r" >> "$OUT/bench.txt"
    HANDOVER=$HANDOVER MIN_THREADS=999 .h200/bin/inflate_parallel_bench "$LIB/libtorch_cuda.so" 1 512 "$WORKERS" >> "$OUT/bench.txt"
  done
  cat "$OUT/bench.txt"
  exit 0
fi
for lib in libtorch_cpu.so libtorch_cuda.so; do
  for ((r = 1; r <= REPS; r++)); do
    for b in inflate_parallel_bench inflate_parallel_bench-old; do
      echo "== $lib $b run $r" >> "$OUT/bench.txt"
      MIN_THREADS=$WORKERS ONLY_PARALLEL=1 ".h200/bin/$b" "$LIB/$lib" 1 512 "$WORKERS" | tail -3 >> "$OUT/bench.txt"
    done
  done
done
cat "$OUT/bench.txt"
