#!/usr/bin/env bash
# How much of a cold install and a switch on the GPU machine is the disk's, and what each way of
# flushing costs: one build run plain and under settings, alternating run by run through
# bench/ab_builds.sh (cold, [warm,] switch). Two settings are built in: nosync, every flush a
# no-op (bench/nosync_preload.c; nothing durable: for measuring only), and nokick, only the
# write-back started at a file's close a no-op. Others are NAME=VAR=VALUE[,VAR=VALUE], each a
# wrapper .h200/bin/envfix-NAME setting those variables. docs/performance.md.
#
# Usage (repository root, after ../shared/tools/carry-to-h200 build/envfix and
#   cc -O2 -shared -fPIC -o .h200/lib/nosync.so bench/nosync_preload.c -ldl):
#   bench/disk_part_h200.sh OUT_DIR REPS [nosync] [nokick] [NAME=VAR=VALUE[,VAR=VALUE] ...] [/path/to/other/envfix ...]
#   [IDX=/tmp/envfix-disk/idx: an index folder of bench/real_stack.py, made when absent; WARM=1]
set -euo pipefail
OUT=${1:?usage: bench/disk_part_h200.sh OUT_DIR REPS [SETTING...]}
REPS=${2:?usage: bench/disk_part_h200.sh OUT_DIR REPS [SETTING...]}
shift 2
IDX=${IDX:-/tmp/envfix-disk/idx}
SRC_PY=${SRC_PY:-/opt/torch/.venv/bin/python3}
REPACK=${REPACK:-.h200/repack-index.py}
mkdir -p "$OUT"
if [[ ! -f $IDX/stack.json ]]; then
  t0=$EPOCHREALTIME
  python3 bench/real_stack.py "$IDX" --python "$SRC_PY" --repack "$REPACK" 2>&1 | tail -3 > "$OUT/stack.log"
  echo "index built in $(python3 -c "print(f'{$EPOCHREALTIME - $t0:.0f}')") s" >> "$OUT/stack.log"
fi
# The disk alone: 2 GiB written and flushed, as a switch's wheel and libraries are.
{ df -T "$IDX"; dd if=/dev/zero of="$IDX/../dd" bs=1M count=2048 conv=fsync 2>&1 | tail -1; rm -f "$IDX/../dd"; } > "$OUT/disk.txt"
lib=$(realpath .h200/lib/nosync.so)
bin=$(realpath .h200/bin)
builds=("$bin/envfix")
for s in "$@"; do
  case $s in
    nosync) printf '#!/bin/sh\nLD_PRELOAD=%s exec %s/envfix "$@"\n' "$lib" "$bin" > "$bin/envfix-nosync" ;;
    nokick) printf '#!/bin/sh\nNOSYNC=kick LD_PRELOAD=%s exec %s/envfix "$@"\n' "$lib" "$bin" > "$bin/envfix-nokick" ;;
    *=*) printf '#!/bin/sh\nexec env %s %s/envfix "$@"\n' "$(tr ',' ' ' <<< "${s#*=}")" "$bin" > "$bin/envfix-${s%%=*}" ;;
    *) builds+=("$s"); continue ;;
  esac
  n=${s%%=*}; chmod +x "$bin/envfix-$n"; builds+=("$bin/envfix-$n")
done
BASE=${BASE:-/usr/bin/python3.12} bench/ab_builds.sh "$IDX" "$REPS" "${builds[@]}" > "$OUT/ab.txt" 2>&1
python3 - "$OUT/ab.txt" > "$OUT/medians.txt" <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    m = re.match(r"(cold|warm|switch) (\S+): ([\d.]+) s wall, ([\d.]+) user, ([\d.]+) sys, max RSS (\d+) KiB", line)
    if m:
        runs.setdefault((m[1], m[2]), []).append((float(m[3]), int(m[6]) // 1024))
for (kind, build), v in sorted(runs.items()):
    walls = sorted(w for w, _ in v)
    print(f"{kind:6} {build:24} median {statistics.median(walls):.2f} s  ({walls[0]:.2f}-{walls[-1]:.2f}, n={len(walls)})  "
          f"RSS {min(r for _, r in v)}-{max(r for _, r in v)} MiB")
PY
cat "$OUT/medians.txt"
