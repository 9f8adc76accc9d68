#!/usr/bin/env bash
# The first read of GPU libraries' fatbins from a cold disk, page by page against read-ahead
# (docs/performance.md, "fatbins read page by page"): `envfix archs` on the libraries with an
# empty cache folder, their pages evicted first (POSIX_FADV_DONTNEED: no root needed), alternating
# ENVFIX_SCATTERED_READS=1 and 0; wall time and what the disks read (/proc/diskstats).
#
# Usage: bench/fatbin_reads.sh [ENVFIX=build/envfix] [REPS=3] -- LIBRARY...
#   e.g. bench/fatbin_reads.sh build/envfix 3 -- /usr/local/cuda/lib64/*.so.*
set -u
ENVFIX=build/envfix
REPS=3
[[ ${1:-} != -- ]] && { ENVFIX=$1; shift; }
[[ ${1:-} != -- ]] && { REPS=$1; shift; }
[[ ${1:-} == -- ]] && shift
(($#)) || { echo "usage: bench/fatbin_reads.sh [ENVFIX] [REPS] -- LIBRARY..." >&2; exit 2; }
CACHE=$(mktemp -d /tmp/envfix-fatbin-reads.XXXXXX)
trap 'rm -rf "$CACHE"' EXIT
disks() { awk '$3 ~ /^(nvme[0-9]+n[0-9]+|sd[a-z]+|vd[a-z]+|xvd[a-z]+)$/ {r += $4; s += $6} END {print r + 0, s + 0}' /proc/diskstats; }
evict() { python3 -c 'import os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' "$@"; }
for ((rep = 1; rep <= REPS; rep++)); do
  for how in 1 0; do
    evict "$@"
    rm -rf "$CACHE/c"
    before=$(disks); t0=$EPOCHREALTIME
    ENVFIX_SCATTERED_READS=$how ENVFIX_CACHE_DIR=$CACHE/c "$ENVFIX" archs --all "$@" > /dev/null || exit 1
    t1=$EPOCHREALTIME; after=$(disks)
    label=$([[ $how == 1 ]] && echo "page by page" || echo "read-ahead  ")
    echo "$label $rep: $(python3 -c "print(f'{$t1 - $t0:.3f}')") s, $(echo $before $after | awk '{printf "%d requests, %.1f MiB", $3 - $1, ($4 - $2) / 2048}') read"
  done
done
