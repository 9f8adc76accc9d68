#!/usr/bin/env bash
# Warm `envfix doctor` of several builds on one environment, alternating: the mean of 20 runs
# each, 3 times, and each build's -vv step times (docs/doctor.md, "Performance").
# Usage: bench/doctor_builds.sh PYTHON ENVFIX...   (e.g. /opt/torch/.venv/bin/python3 on the GPU machine)
set -u
P=${1:?usage: bench/doctor_builds.sh PYTHON ENVFIX...}; shift
C=$(mktemp -d); trap 'rm -rf "$C"' EXIT
for e in "$@"; do ENVFIX_CACHE_DIR=$C/$(basename "$e") "$e" doctor --python "$P" > /dev/null; done
for round in 1 2 3; do for e in "$@"; do
  start=$(date +%s%N)
  for i in $(seq 20); do ENVFIX_CACHE_DIR=$C/$(basename "$e") "$e" doctor --python "$P" > /dev/null; done
  echo "$(basename "$e"): $(( ($(date +%s%N) - start) / 20000 )) us per warm doctor (mean of 20)"
done; done
for e in "$@"; do
  echo "$(basename "$e") -vv:"
  ENVFIX_CACHE_DIR=$C/$(basename "$e") "$e" doctor -vv --python "$P" 2>&1 > /dev/null | grep -E "libraries:|steps"
done
