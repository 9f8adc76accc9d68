#!/usr/bin/env bash
# bench/compare.py on the GPU machine with the real torch stack (docs/performance.md, "envfix, pip
# and uv side by side"): repack the installed torch 2.11.0+cu130 stack into an index with a second,
# relabelled variant (bench/real_stack.py), then compare envfix, pip and uv on it. About 6 minutes.
#
# Usage (repository root): bench/compare_h200.sh OUT_DIR
#   [ENVFIX=.h200/bin/envfix SRC_PY=… BASE=… W=… MODE=index|files REPS=3 PIP_REPS=1 BUDGET=420 REPACK=… IDX=…]
set -euo pipefail
OUT_DIR=${1:?usage: bench/compare_h200.sh OUT_DIR}
ENVFIX=${ENVFIX:-.h200/bin/envfix}
SRC_PY=${SRC_PY:-/opt/torch/.venv/bin/python3}
BASE=${BASE:-/usr/bin/python3.12}
REPACK=${REPACK:-../shared/tools/repack-index.py}
W=${W:-/tmp/envfix-compare}
[[ -f $REPACK ]] || REPACK=shared/tools/repack-index.py
# The interpreter whose pip runs `pip --python VENV install`: the base's, else the torch venv's.
PIP_PY=$BASE
"$BASE" -m pip --version >/dev/null 2>&1 || PIP_PY=$SRC_PY
mkdir -p "$OUT_DIR"
# IDX: an index folder bench/real_stack.py already made (bench/disk_part_h200.sh's), used as it is.
if [[ -z ${IDX:-} ]]; then
  rm -rf "$W"; mkdir -p "$W"
  t0=$EPOCHREALTIME
  python3 bench/real_stack.py "$W/idx" --python "$SRC_PY" --repack "$REPACK" 2>&1 | tail -3 | tee "$OUT_DIR/stack.log"
  echo "index built in $(python3 -c "print(f'{$EPOCHREALTIME - $t0:.0f}')") s"
  IDX=$W/idx
fi
python3 bench/compare.py --index "$IDX" --envfix "$ENVFIX" --python "$BASE" --pip-python "$PIP_PY" \
  --doctor-python "$SRC_PY" --mode "${MODE:-index}" --reps "${REPS:-3}" --pip-reps "${PIP_REPS:-1}" --budget "${BUDGET:-420}" \
  --machine h200 --out "$OUT_DIR"
[[ -n ${KEEP:-} ]] || rm -rf "$W"
