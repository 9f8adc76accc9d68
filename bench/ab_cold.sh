#!/usr/bin/env bash
# Two envfix builds, cold installs alternating, on one index folder (bench/real_stack.py or
# bench/synth_stack.py output) served on 127.0.0.1: wall, user and system CPU, ru_maxrss per run;
# then, for each build, a switch to the second variant and how many inodes and bytes it added to
# the unpacked cache and the venv. Where no NVIDIA GPU is, the tests' stand-in H200 answers
# (bench/standin.py). docs/performance.md ("Peak memory of a cold install"), docs/snapshots.md.
#
# Usage (repository root): bench/ab_cold.sh INDEX_DIR ENVFIX_A ENVFIX_B [REPS=3]
set -u
source bench/index_env.sh
start_ab_run bench/ab_cold.sh "$@"
fresh() { wait_for_maker; rm -rf "$W/run"; mkdir -p "$W/run"; export ENVFIX_CACHE_DIR=$W/run/c ENVFIX_DATA_DIR=$W/run/d; "$BASE" -m venv --without-pip "$W/run/v"; sync; }
usage() { du -s "$@" 2>/dev/null | awk '{s += $1} END {print s}'; }
for rep in $(seq "$REPS"); do for e in "$A" "$B"; do
  fresh
  /usr/bin/time -f "cold $(basename "$e"): %e s wall, %U user, %S sys, max RSS %M KiB" \
    "$e" install --no-verify --env "$W/run/v" --torch-from index --index-url "$URL" -y "${R1[@]}" 2>&1 | grep wall
done; done
for e in "$A" "$B"; do
  fresh
  "$e" install --no-verify --env "$W/run/v" --torch-from index --index-url "$URL" -y "${R1[@]}" > /dev/null 2>&1
  b=$(usage -b "$W/run/c/unpacked" "$W/run/v"); bi=$(usage --inodes "$W/run/c/unpacked" "$W/run/v")
  /usr/bin/time -f "switch $(basename "$e"): %e s wall, %U user, %S sys" \
    "$e" install --no-verify --env "$W/run/v" --torch-from index --index-url "$URL" -y "${R2[@]}" 2>&1 | grep wall
  a=$(usage -b "$W/run/c/unpacked" "$W/run/v"); ai=$(usage --inodes "$W/run/c/unpacked" "$W/run/v")
  echo "switch $(basename "$e"): unpacked cache + venv grew by $(( (a - b) >> 20 )) MiB, $((ai - bi)) inodes"
done
