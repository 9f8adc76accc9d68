#!/usr/bin/env bash
# Where a warm install's commit waits, system call by system call: REPS warm installs of one
# build, each under strace -f -T (the time each call took), then bench/commit_trace.py's summary
# of the window from the first wait for a file's write-back to the journal's commit. On the GPU
# machine a warm install's "writing the files back" took 14-35 ms where bench/flush_probe.cpp's
# copy of envfix's way took 0.4 ms (docs/performance.md).
#
# Usage (repository root): bench/commit_trace.sh INDEX_DIR REPS ENVFIX STRACE OUT_DIR
#   e.g. bench/commit_trace.sh /tmp/envfix-disk/idx 3 .h200/bin/envfix .h200/bin/strace $OUT/trace
#   [BASE=/usr/bin/python3]
set -u
OUT_DIR=${5:?usage: bench/commit_trace.sh INDEX_DIR REPS ENVFIX STRACE OUT_DIR}
STRACE=$(realpath "$4")
mkdir -p "$OUT_DIR"
source bench/index_env.sh
start_builds_run bench/commit_trace.sh "$1" "$2" "$(realpath "$3")"
first_installs
e=${BUILDS[0]}; n=$(basename "$e")
{ findmnt -no SOURCE,FSTYPE,OPTIONS --target "$W"; cat /proc/fs/jbd2/*/info 2>/dev/null | head -20; } > "$OUT_DIR/fs.txt" 2>&1
for rep in $(seq "$REPS"); do
  rm -rf "$W/$n/v"; "$BASE" -m venv --without-pip "$W/$n/v"; sync
  ENVFIX_CACHE_DIR=$W/$n/c ENVFIX_DATA_DIR=$W/$n/d "$STRACE" -f -T -ttt -y -o "$W/trace-$rep.txt" "$e" install -vv \
    --no-verify --env "$W/$n/v" --torch-from index --index-url "$URL" -y "${R1[@]}" 2>&1 | grep -E "debug: (committed|made durable|installed [0-9]+ ms)"
  python3 bench/commit_trace.py "$W/trace-$rep.txt" > "$OUT_DIR/summary-$rep.txt"
  cat "$OUT_DIR/summary-$rep.txt"
  wait_for_maker
done
# The same without strace, for its overhead.
for rep in $(seq "$REPS"); do
  rm -rf "$W/$n/v"; "$BASE" -m venv --without-pip "$W/$n/v"; sync
  ENVFIX_CACHE_DIR=$W/$n/c ENVFIX_DATA_DIR=$W/$n/d "$e" install -vv --no-verify --env "$W/$n/v" --torch-from index \
    --index-url "$URL" -y "${R1[@]}" 2>&1 | grep -E "debug: (made durable|installed [0-9]+ ms)" | tr '\n' ' '; echo
  wait_for_maker
done
cat /proc/fs/jbd2/*/info 2>/dev/null | head -20 >> "$OUT_DIR/fs.txt"
