#!/usr/bin/env bash
# The GPU machine's pauses, with and without envfix and uv (docs/performance.md): bench/vm_pauses with nothing else running (sleeping, spinning, making threads), then
# warm installs of both tools under perf (bench/pause_trace.sh, UV=1), then every free GiB touched
# once (the host backs what the guest touches first) and the same again. $OUT_DIR holds far more
# than the device tool brings back file by file: pack it (tar) into one file under $OUT.
#
# Usage (repository root, the index made): bench/pauses_h200.sh INDEX_DIR OUT_DIR REPS VM_PAUSES PERF ENVFIX
set -u
IDX=$1 OUT=$2 REPS=$3 VMP=$4 PERF=$5 ENVFIX=$6
mkdir -p "$OUT"
state() {  # the guest's view of its memory and of the host's reporting, before and after a step
  { echo "== $1 $(date +%s.%N)"; grep -E "MemFree|MemAvailable|^Cached" /proc/meminfo
    for f in /sys/module/page_reporting/parameters/*; do echo "$(basename "$f")=$(cat "$f")"; done
    grep -E "^cpu " /proc/stat; } >> "$OUT/state.txt" 2>&1
}
{ uname -a; cat /proc/cmdline; nproc; } > "$OUT/machine.txt" 2>&1
state start
"$VMP" sleep 16 10 3000 > "$OUT/idle-sleep.txt"; state idle-sleep
"$VMP" spin 16 5 3000 > "$OUT/idle-spin.txt"; state idle-spin
"$VMP" churn 16 10 3000 > "$OUT/churn.txt"; state churn
UV=1 MIN_MS=3 bench/pause_trace.sh "$IDX" "$REPS" "$PERF" "$OUT/before-touch" "$ENVFIX" > "$OUT/before-touch.txt" 2>&1
state traced
"$VMP" touch 120 90 > "$OUT/touch.txt"; state touch
"$VMP" sleep 16 10 3000 > "$OUT/after-touch-sleep.txt"; state after-touch-sleep
UV=1 MIN_MS=3 bench/pause_trace.sh "$IDX" "$REPS" "$PERF" "$OUT/after-touch" "$ENVFIX" > "$OUT/after-touch.txt" 2>&1
state after-touch-traced
