#!/usr/bin/env bash
# Warm installs of several envfix builds side by side, with the -vv steps that say where a warm
# install's time goes ("folders made", "files staged": the links from the unpacked cache;
# "committed" and its flush, "made durable"). Each
# build first installs the first variant once into a venv of its own caches, then REPS warm
# installs into new venvs, alternating the builds. docs/performance.md.
#
# Usage (repository root): bench/warm_steps.sh INDEX_DIR REPS ENVFIX...   [BASE=/usr/bin/python3 ALL=1]
# ALL=1: every -vv line of each install (but the index pages'), joined by "|", not only the steps.
#   e.g. python3 bench/synth_stack.py /tmp/synth --scale 0.02 && bench/warm_steps.sh /tmp/synth 4 build/envfix
set -u
source bench/index_env.sh
start_builds_run bench/warm_steps.sh "$@"
first_installs
for rep in $(seq "$REPS"); do for e in "${BUILDS[@]}"; do
  n=$(basename "$e")
  rm -rf "$W/$n/v"; "$BASE" -m venv --without-pip "$W/$n/v"; sync
  ENVFIX_CACHE_DIR=$W/$n/c ENVFIX_DATA_DIR=$W/$n/d /usr/bin/time -f "warm $n: %e s wall, %U user, %S sys" "$e" install -vv \
    --no-verify --env "$W/$n/v" --torch-from index --index-url "$URL" -y "${R1[@]}" 2>&1 |
    if [[ -n ${ALL:-} ]]; then grep -vE "simple/|^ " | tr '\n' '|'; else
    grep -E "wall|after the command|opened and planned|checks:|ready trees taken|folders made|files staged|RECORD files|committed|made durable|ready trees used" | tr '\n' ' '; fi
  echo
  # The ready trees an install asked for are made by `envfix cache ready` in the background: the
  # next run starts once it has ended (docs/performance.md, "Ready trees").
  wait_for_maker
done; done
