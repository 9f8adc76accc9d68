#!/usr/bin/env bash
# Peak memory of a cold install of the real torch stack on the GPU machine (docs/performance.md,
# "Peak memory of a cold install"): repack the installed torch 2.11.0+cu130 stack into wheels
# (bench/real_stack.py), then bench/peak_rss.py: cold installs into new venvs, ru_maxrss and the
# sampled anonymous / file-backed peaks. About 3 minutes.
#
# Usage (repository root): bench/peak_rss_h200.sh OUT_DIR   [ENVFIX=.h200/bin/envfix SRC_PY=… BASE=… W=… REPS=3]
set -euo pipefail
OUT_DIR=${1:?usage: bench/peak_rss_h200.sh OUT_DIR}
ENVFIX=${ENVFIX:-.h200/bin/envfix}
SRC_PY=${SRC_PY:-/opt/torch/.venv/bin/python3}
BASE=${BASE:-/usr/bin/python3.12}
REPACK=${REPACK:-../shared/tools/repack-index.py}
W=${W:-/tmp/envfix-peak-rss}
REPS=${REPS:-3}
[[ -f $REPACK ]] || REPACK=shared/tools/repack-index.py
rm -rf "$W"; mkdir -p "$W" "$OUT_DIR"
python3 bench/real_stack.py "$W/idx" --python "$SRC_PY" --repack "$REPACK" 2>&1 | tail -3 | tee "$OUT_DIR/stack.log"
python3 bench/peak_rss.py --index "$W/idx" --envfix "$ENVFIX" --python "$BASE" --reps "$REPS" \
  --json "$OUT_DIR/peak-rss.json" | tee "$OUT_DIR/peak-rss.txt"
rm -rf "$W"
