#!/usr/bin/env bash
# Warm installs under `perf record -a` (every CPU: cpu-clock samples and each switch, with the
# kernel's and the program's stacks, on CLOCK_MONOTONIC), then bench/pause_trace.py's windows in
# which none of the tool's threads recorded anything, and the waits for the descriptor table to
# grow. On the GPU machine every warm install held one such window of 10-40 ms: the table's growth waiting for an RCU grace period
# (docs/performance.md); the perf log (its lost events) is in each
# NAME-REP.log. With UV=1, uv's warm installs (its cache filled by a first install) alternate
# with envfix's; under this recording they took 4.5-13 s there instead of 0.3 s.
#
# Usage (repository root): bench/pause_trace.sh INDEX_DIR REPS PERF OUT_DIR ENVFIX...
#   e.g. bench/pause_trace.sh /tmp/envfix-disk/idx 3 .h200/bin/perf $OUT/pause .h200/bin/envfix
#   [UV=1 BASE=/usr/bin/python3 MIN_MS=5]
set -u
PERF=$(realpath "${3:?usage: bench/pause_trace.sh INDEX_DIR REPS PERF OUT_DIR ENVFIX...}")
OUT_DIR=${4:?usage: bench/pause_trace.sh INDEX_DIR REPS PERF OUT_DIR ENVFIX...}
mkdir -p "$OUT_DIR"
OUT_DIR=$(realpath "$OUT_DIR")
source bench/index_env.sh
start_builds_run bench/pause_trace.sh "$1" "$2" "${@:5}"
first_installs
if [[ -n ${UV:-} ]]; then
  "$BASE" -m venv --without-pip "$W/uv/v0"
  uv pip install --python "$W/uv/v0/bin/python" --cache-dir "$W/uv/c" --index-url "$URL" "${R1[@]}" > /dev/null 2>&1 ||
    echo "uv: the first install failed"
fi
# One install of NAME under perf: its -vv steps (envfix) or its output (uv) to NAME-REP.log, the
# machine's events (the idle task's samples left out) to NAME-REP.perf.gz, the windows to
# NAME-REP.pauses.txt (their count to stdout).
traced() {
  local name=$1 rep=$2; shift 2
  rm -rf "$W/$name/v"; "$BASE" -m venv --without-pip "$W/$name/v"; sync
  "$PERF" record -a -g -k CLOCK_MONOTONIC -F 4000 -e cpu-clock -e sched:sched_switch -o "$W/perf.data" -- \
    "$@" > "$OUT_DIR/$name-$rep.log" 2>&1
  "$PERF" script -i "$W/perf.data" -F comm,pid,tid,cpu,time,event,ip,sym,trace 2>/dev/null |
    awk 'BEGIN { RS = ""; ORS = "\n\n" } !/^ *swapper/' | gzip > "$OUT_DIR/$name-$rep.perf.gz"
  rm -f "$W/perf.data"
  local tool; tool=$(basename "$1")  # the command's name, as perf has it (15 characters)
  python3 bench/pause_trace.py "$OUT_DIR/$name-$rep.perf.gz" --tool "${tool:0:15}" --min-ms "${MIN_MS:-5}" \
    > "$OUT_DIR/$name-$rep.pauses.txt"
  head -1 "$OUT_DIR/$name-$rep.pauses.txt"
  # The descriptor table grown while several threads share it (a wait for synchronize_rcu): the
  # events whose stack passes through expand_files, switches out and samples alike.
  echo "  events in expand_files: $(zcat "$OUT_DIR/$name-$rep.perf.gz" | grep -c expand_files)"
  grep -E "installed [0-9]+ ms after" "$OUT_DIR/$name-$rep.log" | sed 's/^/  /'
}
for rep in $(seq "$REPS"); do
  for e in "${BUILDS[@]}"; do
    n=$(basename "$e")
    ENVFIX_CACHE_DIR=$W/$n/c ENVFIX_DATA_DIR=$W/$n/d traced "$n" "$rep" "$e" install -vv --no-verify --env "$W/$n/v" \
      --torch-from index --index-url "$URL" -y "${R1[@]}"
    wait_for_maker
  done
  if [[ -n ${UV:-} ]]; then
    traced uv "$rep" uv pip install --python "$W/uv/v/bin/python" --cache-dir "$W/uv/c" --index-url "$URL" "${R1[@]}"
  fi
done
