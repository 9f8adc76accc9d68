#!/usr/bin/env bash
# TEMPORARY (not committed): warm installs with ENVFIX_WB_TRACE, whole -vv output kept.
# PRE_SLEEP=S: pause after the sync before each install. PERF=path: each install under perf record -a.
set -u
source bench/index_env.sh
start_builds_run bench/wb_trace.sh "$@"
first_installs
for rep in $(seq "$REPS"); do for e in "${BUILDS[@]}"; do
  n=$(basename "$e")
  rm -rf "$W/$n/v"; "$BASE" -m venv --without-pip "$W/$n/v"; sync
  [[ -n ${PRE_SLEEP:-} ]] && sleep "$PRE_SLEEP"
  wrap=()
  [[ -n ${PERF:-} ]] && wrap=("$PERF" record -q -a -g -k CLOCK_MONOTONIC -F 4000 -e cpu-clock -e sched:sched_switch -o "$PERF_OUT/perf-$n-$rep.data" --)
  st0=$(awk '/^cpu /{print $9}' /proc/stat)
  echo "=== $n rep $rep"
  ENVFIX_WB_TRACE=1 ENVFIX_CACHE_DIR=$W/$n/c ENVFIX_DATA_DIR=$W/$n/d /usr/bin/time -f "%e s wall" "${wrap[@]}" "$e" install -vv --no-verify --env "$W/$n/v" \
    --torch-from index --index-url "$URL" -y "${R1[@]}" 2>&1 | grep -vE "^(Would|installed )|simple/|interpreter facts"
  echo "steal: $(( $(awk '/^cpu /{print $9}' /proc/stat) - st0 )) ticks"
  wait_for_maker
done; done
