#!/usr/bin/env bash
# What bounds a cold install's download on the GPU machine: the first variant's wheels of an index
# folder (bench/real_stack.py or bench/synth_stack.py output) fetched from bench/compare.py's
# server on 127.0.0.1 by envfix's downloader alone (download_bench: every file checked, flushed
# and renamed, as an install does, without the unpacking beside it), against curl's command line
# (one process per connection, so one core each) writing the same files, and against dd writing
# that many bytes into the page cache. docs/performance.md, "Downloads".
#
# Usage (repository root): bench/download_h200.sh INDEX_DIR OUT_FILE
#   [BENCH=.h200/bin/download_bench OLD=other/download_bench PARS="4 8" FLUSHES="each batch" REPS=2]
# OLD: another build of download_bench, run beside it at each setting (an A/B on one machine).
set -u
IDX=${1:?usage: bench/download_h200.sh INDEX_DIR OUT_FILE}
LOG=${2:?usage: bench/download_h200.sh INDEX_DIR OUT_FILE}
BENCH=$(realpath "${BENCH:-.h200/bin/download_bench}")
W=$(mktemp -d /tmp/envfix-dl.XXXXXX)
source bench/index_env.sh
serve_index "$IDX" "$W" 900
trap 'kill $SERVER 2>/dev/null; rm -rf "$W"' EXIT
base=${URL%simple/}
# URL SHA256 SIZE per wheel of the first variant, largest first (as the downloader orders them).
mapfile -t ITEMS < <(python3 - "$IDX" "$base" <<'PY'
import hashlib, json, os, sys
idx, base = sys.argv[1:3]
d = json.load(open(os.path.join(idx, "stack.json")))
rows = []
for w in d["variants"][d["order"][0]]["wheels"]:
    p = os.path.join(idx, w)
    with open(p, "rb") as f:
        rows.append((os.path.getsize(p), base + w, hashlib.file_digest(f, "sha256").hexdigest()))
for size, url, sha in sorted(rows, reverse=True):
    print(url, sha, size)
PY
)
ARGS=(); URLS=(); TOTAL=0
for row in "${ITEMS[@]}"; do read -r u s n <<< "$row"; ARGS+=("$u" "$s" "$n"); URLS+=("$u"); TOTAL=$((TOTAL + n)); done
rate() { python3 -c "import sys; t=float(sys.argv[2])-float(sys.argv[1]); print(f'{t:.2f} s, {int(sys.argv[3])/t/1e6:.0f} MB/s')" "$@"; }
fresh() { rm -rf "$W/d"; mkdir -p "$W/d"; sync; }
{
echo "${#URLS[@]} wheels, $TOTAL bytes, $(nproc) cores"
for rep in $(seq "${REPS:-2}"); do
  fresh; t=$EPOCHREALTIME
  dd if=/dev/zero of="$W/d/z" bs=1M count=$((TOTAL >> 20)) status=none
  echo "dd, one writer into the page cache: $(rate "$t" "$EPOCHREALTIME" "$TOTAL")"
  fresh; t=$EPOCHREALTIME
  printf '%s\n' "${URLS[@]}" | xargs -P 4 -I{} sh -c 'curl -s -o "$1/d/$(basename "$2")" "$2"' _ "$W" {}
  echo "curl, 4 processes writing the files (whole files): $(rate "$t" "$EPOCHREALTIME" "$TOTAL")"
  fresh; t=$EPOCHREALTIME
  printf '%s\n' "${URLS[@]}" | xargs -P 4 -I{} curl -s -o /dev/null {}
  echo "curl, 4 processes to /dev/null: $(rate "$t" "$EPOCHREALTIME" "$TOTAL")"
  for p in ${PARS:-4 8}; do
    for flush in ${FLUSHES:-each batch}; do
      for b in "$BENCH" ${OLD:+$(realpath "$OLD")}; do
        fresh
        echo -n "envfix downloader$([[ $b == "$BENCH" ]] || echo " (OLD)"), $p connections, ENVFIX_DOWNLOAD_FLUSH=$flush: "
        /usr/bin/time -f "  (%e s wall, %U user, %S sys)" env ENVFIX_DOWNLOAD_FLUSH=$flush "$b" "$W/d" "$p" "${ARGS[@]}" 2>&1 | tr '\n' ' '; echo
      done
    done
  done
done
} > "$LOG" 2>&1
