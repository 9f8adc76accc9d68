#!/usr/bin/env bash
# Switches in bench/compare.py's chain (page cache dropped, cold install into v, v deleted, warm
# install into w, the page cache dropped again, switch w to the second variant), envfix builds
# alternating run by run, each switch with -vv: its wall time and where it waited. Builds are
# paths, or NAME=VAR=VALUE[,VAR=VALUE] (the first path run with those variables).
# docs/performance.md.
#
# Usage (repository root, after bench/real_stack.py made INDEX_DIR):
#   [VV_LOG=FILE] bench/switch_ab_h200.sh INDEX_DIR OUT_DIR REPS BUILD...
# VV_LOG: each switch's -vv (but the index pages' lines) appended to FILE as it ends, e.g. a file
# under the device call's $OUT, which comes back even where the call runs out of time (logs packed only at the end would not).
set -u
IDX=${1:?usage: bench/switch_ab_h200.sh INDEX_DIR OUT_DIR REPS BUILD...}
OUT=$(realpath -m "${2:?}")
REPS=${3:?}
shift 3
mkdir -p "$OUT"
first=""
names=()
for b in "$@"; do
  case $b in
    *=*) n=${b%%=*}; w="$OUT/envfix-$n"
         printf '#!/bin/sh\nexec env %s %s "$@"\n' "$(tr ',' ' ' <<< "${b#*=}")" "$first" > "$w"; chmod +x "$w" ;;
    *) [[ -z $first ]] && first=$(realpath "$b"); n=$(basename "$b"); w=$(realpath "$b") ;;
  esac
  names+=("$n=$w")
done
for rep in $(seq "$REPS"); do
  for nw in "${names[@]}"; do
    n=${nw%%=*}; w=${nw#*=}
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin ENVFIX="$w" bench/switch_profile_h200.sh "$IDX" "$OUT/$n-$rep" > /dev/null 2>&1
    wall=$(grep -oE 'Elapsed.*: [0-9:.]+' "$OUT/$n-$rep/time-v.txt" | grep -oE '[0-9.]+$')
    [[ -n ${VV_LOG:-} ]] && { echo "== $n $rep $wall"; grep -v 'simple/' "$OUT/$n-$rep/switch-vv.log"; } >> "$VV_LOG"
    echo "$n $rep $wall"
  done
done | tee "$OUT/walls.txt"
python3 - "$OUT/walls.txt" <<'PY' | tee "$OUT/medians.txt"
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    n, rep, wall = line.split()
    runs.setdefault(n, []).append(float(wall))
for n, v in runs.items():
    print(f"{n}: switch median {statistics.median(v):.2f} s ({min(v):.2f}-{max(v):.2f}, n={len(v)})")
PY
