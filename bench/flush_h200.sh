#!/usr/bin/env bash
# On the GPU machine: where a warm install's commit flush goes (docs/performance.md). bench/flush_probe.cpp's ways of writing back 76 new small files, then
# warm installs of the given builds side by side (bench/warm_steps.sh, their -vv steps). About
# 3 minutes with the index already made (bench/real_stack.py, 80 s more without it).
#
# Usage (repository root, after ../shared/tools/carry-to-h200 build/envfix and
#   g++ -O2 -std=c++20 -pthread bench/flush_probe.cpp -o .h200/bin/flush_probe):
#   bench/flush_h200.sh OUT_DIR [ENVFIX...]   [IDX=/tmp/envfix-disk/idx REPS=4]
set -u
OUT=${1:?usage: bench/flush_h200.sh OUT_DIR [ENVFIX...]}
shift
b=$PWD/.h200/bin
(($#)) || set -- "$b/envfix"
IDX=${IDX:-/tmp/envfix-disk/idx}
mkdir -p "$OUT"
{ nvidia-smi --query-gpu=name --format=csv,noheader; df -T /tmp; lsblk -o NAME,ROTA,SIZE,TYPE,MODEL
  for d in /sys/block/*/queue; do echo "$d $(cat "$d/nr_requests" "$d/scheduler" "$d/rotational" | tr '\n' ' ')"; done; } > "$OUT/machine.txt" 2>&1
"$b/flush_probe" /tmp/flush-probe 3 17000 76 > "$OUT/probe76.txt" 2>&1; rm -rf /tmp/flush-probe
[[ -f $IDX/stack.json ]] || python3 bench/real_stack.py "$IDX" --python "${SRC_PY:-/opt/torch/.venv/bin/python3}" \
  --repack "${REPACK:-.h200/repack-index.py}" 2>&1 | tail -2 > "$OUT/stack.log"
bench/warm_steps.sh "$IDX" "${REPS:-4}" "$@" > "$OUT/warm_steps.txt" 2>&1
cat "$OUT/probe76.txt"; grep -o 'warm [^:]*: [0-9.]* s wall' "$OUT/warm_steps.txt"
