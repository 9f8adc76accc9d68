#!/usr/bin/env bash
# The time of each step of `envfix install` (its -vv `install.debug.phase` lines) on an index
# folder made by bench/real_stack.py or bench/synth_stack.py: a cold install, a warm one, a switch
# to the second variant, the switch back (both cached), warm installs with --threads 1..32, and
# warm `doctor` timings. docs/performance.md, "Where each target stands, and why".
#
# Usage (repository root): bench/install_steps.sh INDEX_DIR OUT_FILE
#   [ENVFIX=.h200/bin/envfix BASE=/usr/bin/python3.12 DOCTOR_PY=/opt/torch/.venv/bin/python3]
# On the GPU machine after `KEEP=1 W=/tmp/envfix-compare bench/compare_h200.sh OUT`:
#   bench/install_steps.sh /tmp/envfix-compare/idx OUT/steps.log
# Here, e.g. with a ThreadSanitizer build: ENVFIX=/tmp/tsan/envfix BASE=/usr/bin/python3
#   DOCTOR_PY=/usr/bin/python3 bench/install_steps.sh /tmp/simidx /tmp/steps.log
set -u
IDX=${1:?usage: bench/install_steps.sh INDEX_DIR OUT_FILE}
LOG=${2:?usage: bench/install_steps.sh INDEX_DIR OUT_FILE}
E=$(realpath "${ENVFIX:-.h200/bin/envfix}")
BASE=${BASE:-/usr/bin/python3.12}
DOCTOR_PY=${DOCTOR_PY:-/opt/torch/.venv/bin/python3}
W=$(mktemp -d /tmp/envfix-steps.XXXXXX)
source bench/index_env.sh
use_standin_without_gpu  # here: the stand-in H200, else no variant fits
serve_index "$IDX" "$W" 600
trap 'kill $SERVER 2>/dev/null; rm -rf "$W"' EXIT
export ENVFIX_CACHE_DIR=$W/cache ENVFIX_DATA_DIR=$W/data
variant_requirements "$IDX" 0 R1
variant_requirements "$IDX" 1 R2
step() { local v=$1 label=$2; shift 2; sync
  /usr/bin/time -f "$label: %e s wall, %U user, %S sys, max RSS %M KiB" "$E" install -vv --no-verify --env "$W/$v" --torch-from index \
    --index-url "$URL" -y "$@" 2>&1 | grep -E "ms$|done in|wall|error|downloading|began|checked at"; }
{
for v in s1 s2; do "$BASE" -m venv --without-pip "$W/$v"; done
step s1 cold "${R1[@]}"; step s2 warm "${R1[@]}"; step s2 switch "${R2[@]}"; step s2 "switch back (both cached)" "${R1[@]}"
for n in 1 4 8 16 32; do "$BASE" -m venv --without-pip "$W/t$n"; step "t$n" "warm --threads $n" "${R1[@]}" --threads "$n"; done
if [[ -x $DOCTOR_PY ]]; then
  echo "doctor (warm, 15 runs, ms):"; "$E" doctor --python "$DOCTOR_PY" > /dev/null 2>&1
  for i in $(seq 15); do t=$EPOCHREALTIME; "$E" doctor --python "$DOCTOR_PY" > /dev/null 2>&1
    python3 -c "import sys; print(round((float(sys.argv[2]) - float(sys.argv[1])) * 1000, 1))" "$t" "$EPOCHREALTIME"; done | sort -n | tr '\n' ' '; echo
fi
} > "$LOG" 2>&1
