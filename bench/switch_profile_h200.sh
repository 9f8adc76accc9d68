#!/usr/bin/env bash
# Where a switch spends its CPU in bench/compare.py's chain (page cache dropped, cold install into
# v, v deleted, warm install into w, switch w): the switch under /usr/bin/time -v and, where perf
# is installed, perf record; the top symbols and threads into OUT_DIR. docs/performance.md.
#
# Usage (repository root, after bench/real_stack.py made INDEX_DIR; ENVFIX a build whose symbol
# table is kept, e.g. objcopy --strip-debug):
#   bench/switch_profile_h200.sh INDEX_DIR OUT_DIR [ENVFIX=.h200/bin/envfix BASE=/usr/bin/python3.12]
set -u
source bench/index_env.sh
IDX=$(realpath "${1:?usage: bench/switch_profile_h200.sh INDEX_DIR OUT_DIR}")
OUT=$(realpath -m "${2:?usage: bench/switch_profile_h200.sh INDEX_DIR OUT_DIR}")
E=$(realpath "${ENVFIX:-.h200/bin/envfix}")
BASE=${BASE:-/usr/bin/python3.12}
mkdir -p "$OUT"
W=$(mktemp -d /tmp/envfix-switch-profile.XXXXXX)
start_index_run "$IDX" "$W"
export ENVFIX_CACHE_DIR=$W/c ENVFIX_DATA_DIR=$W/d
inst() { "$E" install --no-verify --torch-from index --index-url "$URL" -y "$@"; }
"$BASE" -m venv --without-pip "$W/v"; sync
echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
inst --env "$W/v" "${R1[@]}" > /dev/null 2>&1
rm -rf "$W/v"; sync
"$BASE" -m venv --without-pip "$W/w"; sync
inst --env "$W/w" "${R1[@]}" > /dev/null 2>&1
# What the warm install left running (ready trees, the facts its .pth files made outdated) ends
# first, as compare.py waits for it.
wait_for_maker
sync
# The switch's wheels read from the disk by the server, as in compare.py's chain.
echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true
if command -v perf > /dev/null; then
  perf record -q -F 997 -g -o "$W/perf.data" /usr/bin/time -v -o "$OUT/time-v.txt" "$E" install -vv --no-verify --torch-from index \
    --index-url "$URL" -y --env "$W/w" "${R2[@]}" > /dev/null 2> "$OUT/switch-vv.log"
  perf report -i "$W/perf.data" --no-children --sort comm,symbol --stdio -g none 2>/dev/null | grep '%' | sed "s/ *-  *- *$//" | cut -c1-220 | head -60 > "$OUT/perf-top.txt"
  perf report -i "$W/perf.data" --no-children --sort pid --stdio -g none 2>/dev/null | grep '%' | sed "s/ *-  *- *$//" | head -40 > "$OUT/perf-threads.txt"
  perf report -i "$W/perf.data" --children --sort symbol --stdio -g none 2>/dev/null | grep '%' | sed "s/ *-  *- *$//" | cut -c1-220 | head -80 > "$OUT/perf-children.txt"
else
  echo "perf is not installed" > "$OUT/perf-top.txt"
  /usr/bin/time -v -o "$OUT/time-v.txt" "$E" install -vv --no-verify --torch-from index --index-url "$URL" -y --env "$W/w" "${R2[@]}" \
    > /dev/null 2> "$OUT/switch-vv.log"
fi
grep -E "Elapsed|Maximum resident|User time|System time|Percent of CPU|context switches" "$OUT/time-v.txt"
head -25 "$OUT/perf-top.txt"
