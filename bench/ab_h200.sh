#!/usr/bin/env bash
# One device call that measures a change on the GPU machine when little device time is left:
# the real torch stack repacked into an index (bench/real_stack.py, about 70 s), two builds'
# cold installs and switches alternating on it (bench/ab_cold.sh), then the new build's steps
# (bench/install_steps.sh). Each result file is written as it goes, so a call cut short still
# brings back what was measured. docs/performance.md.
#
# Usage (repository root, on the GPU machine): bench/ab_h200.sh OUT_DIR OLD_ENVFIX NEW_ENVFIX [REPS=2]
#   [SRC_PY=/opt/torch/.venv/bin/python3 REPACK=.h200/repack-index.py W=/tmp/envfix-ab]
# The two programs need different file names (ab_cold.sh labels its lines with them).
set -u
OUT_DIR=${1:?usage: bench/ab_h200.sh OUT_DIR OLD_ENVFIX NEW_ENVFIX [REPS]}
OLD=${2:?usage: bench/ab_h200.sh OUT_DIR OLD_ENVFIX NEW_ENVFIX [REPS]}
NEW=${3:?usage: bench/ab_h200.sh OUT_DIR OLD_ENVFIX NEW_ENVFIX [REPS]}
REPS=${4:-2}
SRC_PY=${SRC_PY:-/opt/torch/.venv/bin/python3}
REPACK=${REPACK:-.h200/repack-index.py}
W=${W:-/tmp/envfix-ab}
mkdir -p "$OUT_DIR"
rm -rf "$W"; mkdir -p "$W"
t0=$EPOCHREALTIME
python3 bench/real_stack.py "$W/idx" --python "$SRC_PY" --repack "$REPACK" > "$OUT_DIR/stack.log" 2>&1 || { tail -5 "$OUT_DIR/stack.log"; exit 1; }
echo "index built in $(python3 -c "print(f'{$EPOCHREALTIME - $t0:.0f}')") s" | tee -a "$OUT_DIR/stack.log"
bench/ab_cold.sh "$W/idx" "$OLD" "$NEW" "$REPS" > "$OUT_DIR/ab_cold.txt" 2>&1
cat "$OUT_DIR/ab_cold.txt"
ENVFIX=$NEW bench/install_steps.sh "$W/idx" "$OUT_DIR/steps.log"
grep -E "wall|flushed|waited|wheels unpacked and flushed|folders made" "$OUT_DIR/steps.log" | head -20
rm -rf "$W"
