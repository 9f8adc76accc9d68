#!/usr/bin/env bash
# What envfix verify costs, and what verification adds to envfix install (docs/performance.md,
# "verify"). Runs `envfix verify` on PY's environment RUNS times (median of the wall times, and
# the framework check's own seconds from --json), then installs WHEEL into a fresh copy of a venv
# with and without verification.
#
# Usage (repository root): bench/verify_time.sh PY [WHEEL]   [ENVFIX=build/envfix RUNS=5]
# On a CPU machine point ENVFIX_LIBCUDA & co. at the stand-in H200 (tests/standin/README.md).
set -euo pipefail
PY=$1
WHEEL=${2:-}
ENVFIX=${ENVFIX:-build/envfix}
RUNS=${RUNS:-5}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wall() { local t0=$EPOCHREALTIME; "$@" >/dev/null 2>&1 || true; python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$t0" "$EPOCHREALTIME"; }

for _ in $(seq "$RUNS"); do wall "$ENVFIX" verify --python "$PY"; done | median | xargs echo "envfix verify, both levels (s, median of $RUNS):"
for _ in $(seq "$RUNS"); do wall "$ENVFIX" verify --driver-only; done | median | xargs echo "envfix verify --driver-only (s):"
for _ in $(seq "$RUNS"); do
  "$ENVFIX" verify --python "$PY" --json 2>/dev/null | python3 -c "import json,sys; print(json.load(sys.stdin)['framework_check']['process']['seconds'])"
done | median | xargs echo "framework check alone, as envfix timed the interpreter (s):"

if [[ -n $WHEEL ]]; then
  base=$("$PY" -c "import sys; print(sys.prefix)")
  for mode in --no-verify ""; do
    for i in $(seq "$RUNS"); do
      rm -rf "$W/v"; cp -al "$base" "$W/v"
      # shellcheck disable=SC2086
      wall "$ENVFIX" install --python "$W/v/bin/python3" --no-deps --force-reinstall $mode "$WHEEL"
    done | median | xargs echo "envfix install ${mode:-(verified)} $(basename "$WHEEL") (s):"
  done
fi
