#!/usr/bin/env bash
# What an install into a new venv spends before its own steps (the process, the interpreter's
# facts, the index pages revalidated, the resolution), builds side by side: each build installs
# the first variant once into a venv of its own caches, then REPS dry runs into new venvs at new
# paths, alternating the builds. A new venv's facts come from a cached sibling where the build
# can (docs/environments.md, "A new venv from a cached sibling"; docs/performance.md).
#
# Usage (repository root): bench/new_venv_dry.sh INDEX_DIR REPS ENVFIX...   [BASE=/usr/bin/python3]
#   e.g. python3 bench/synth_stack.py /tmp/synth --scale 0.02 && bench/new_venv_dry.sh /tmp/synth 6 build/envfix
set -u
source bench/index_env.sh
start_builds_run bench/new_venv_dry.sh "$@"
first_installs
for rep in $(seq "$REPS"); do for e in "${BUILDS[@]}"; do
  n=$(basename "$e")
  "$BASE" -m venv --without-pip "$W/$n/v$rep"
  ENVFIX_CACHE_DIR=$W/$n/c ENVFIX_DATA_DIR=$W/$n/d /usr/bin/time -f "dry run $n: %e s wall, %U user, %S sys" "$e" install \
    --dry-run --no-verify --env "$W/$n/v$rep" --torch-from index --index-url "$URL" -y "${R1[@]}" 2>&1 > /dev/null | tail -1
done; done
