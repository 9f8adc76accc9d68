#!/usr/bin/env bash
# Where envfix's install of a stack spends its time (docs/performance.md, "What limits each
# figure"): the first variant of a bench/synth_stack.py or bench/real_stack.py index installed into
# new venvs under /usr/bin/time -v, strace -c -f and perf record (each where installed).
#
# Usage: bench/profile_install.sh INDEX_DIR [OUT_DIR]   [ENVFIX=build/envfix PY=/usr/bin/python3]
set -euo pipefail
IDX=$(realpath "${1:?usage: bench/profile_install.sh INDEX_DIR [OUT_DIR]}")
OUT=${2:-$IDX/../profile}
ENVFIX=$(realpath "${ENVFIX:-build/envfix}")
PY=${PY:-/usr/bin/python3}
mkdir -p "$OUT"
mapfile -t WHEELS < <(python3 -c "import json,sys; s=json.load(open(sys.argv[1]+'/stack.json')); [print(sys.argv[1]+'/'+w) for w in s['variants'][s['order'][0]]['wheels']]" "$IDX")
export ENVFIX_CACHE_DIR=$OUT/cache
fresh() { rm -rf "$OUT/venv"; "$PY" -m venv --without-pip "$OUT/venv"; sync; echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true; }
fresh
/usr/bin/time -v "$ENVFIX" install --json --env "$OUT/venv" "${WHEELS[@]}" >"$OUT/install.json" 2>"$OUT/time-v.txt"
grep -E "Elapsed|Maximum resident|User time|System time|Percent of CPU|context switches|File system" "$OUT/time-v.txt"
python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['transaction']; print({k: t[k] for k in t if k.startswith(('seconds','files','bytes','moves'))})" "$OUT/install.json"
if command -v strace >/dev/null; then
  fresh
  strace -f -c -o "$OUT/strace-c.txt" "$ENVFIX" install --env "$OUT/venv" "${WHEELS[@]}" >/dev/null
  head -25 "$OUT/strace-c.txt"
fi
if command -v perf >/dev/null; then
  fresh
  perf record -q -g -o "$OUT/perf.data" "$ENVFIX" install --env "$OUT/venv" "${WHEELS[@]}" >/dev/null 2>&1 || true
  perf report -i "$OUT/perf.data" --no-children --sort dso,symbol --stdio 2>/dev/null | grep -v '^#' | grep '%' | head -30 | tee "$OUT/perf-top.txt"
fi
