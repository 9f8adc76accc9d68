#!/usr/bin/env bash
# Warm installs of several builds (or one build under settings: bench/disk_part_h200.sh's
# wrappers) alternating, each with what the disk did during it: the writes, sectors and flushes
# it completed and the time they took (/sys/block/DEV/stat before and after), next to the -vv
# steps that wait for it ("files staged", "committed", "made durable"). Whether a warm install's
# 15-45 ms wait on the GPU machine is its own writes or the disk's answer to them
# (docs/performance.md).
#
# Usage (repository root): bench/warm_disk.sh INDEX_DIR REPS ENVFIX...   [DEV: the disk, default
#   the one holding WORK_ROOT; BASE=/usr/bin/python3]
set -u
source bench/index_env.sh
start_builds_run bench/warm_disk.sh "$@"
dev=${DEV:-$(lsblk -no PKNAME "$(findmnt -no SOURCE --target "$W")" 2>/dev/null | head -1)}
[[ -n $dev ]] || dev=$(basename "$(findmnt -no SOURCE --target "$W")")
stat_file=/sys/block/$dev/stat
[[ -r $stat_file ]] || stat_file=/dev/null
echo "disk: $dev ($stat_file)"
first_installs
for rep in $(seq "$REPS"); do for e in "${BUILDS[@]}"; do
  n=$(basename "$e")
  rm -rf "$W/$n/v"; "$BASE" -m venv --without-pip "$W/$n/v"; sync
  read -r -a s0 < "$stat_file"
  steps=$(ENVFIX_CACHE_DIR=$W/$n/c ENVFIX_DATA_DIR=$W/$n/d /usr/bin/time -f "%e s wall" "$e" install -vv --no-verify --env "$W/$n/v" \
    --torch-from index --index-url "$URL" -y "${R1[@]}" 2>&1 |
    grep -E "wall|debug: (files staged|committed|made durable|installed [0-9]+ ms)" |
    sed -E 's/debug: made durable one by one: [0-9]+ files brought in and [0-9]+ folders changed, in/durable/; s/; [0-9]+ more brought in were on the disk already//; s/debug: //' | tr '\n' ' ')
  read -r -a s1 < "$stat_file"
  # Fields: 4 writes completed, 6 sectors written, 7 ms writing; 11/14 discards and their ms (the
  # GPU machine mounts with discard); 15/16 flushes and their ms (kernel 5.5+).
  d() { echo $(( ${s1[$1]:-0} - ${s0[$1]:-0} )); }
  echo "$n: $steps| disk: $(d 4) writes, $(( $(d 6) / 2 )) KiB, $(d 7) ms writing, $(d 11) discards in $(d 14) ms, $(d 15) flushes in $(d 16) ms"
  wait_for_maker
done; done
