#!/usr/bin/env bash
# Peak memory of builds of envfix, one after the other, on an index folder (bench/synth_stack.py or
# bench/real_stack.py output) served on 127.0.0.1: per build a cold install of the first variant,
# then the switch to the second, each through bench/rss_steps.py (ru_maxrss, and the anonymous
# memory at each -vv step). RUNNERS and THREADS give a small machine the GPU machine's structure
# (eight unpacking runners, 32 threads). docs/performance.md.
#
# Usage (repository root): bench/rss_ab.sh INDEX_DIR ENVFIX... [RUNNERS=8 THREADS=32]
set -u
IDX=${1:?usage: bench/rss_ab.sh INDEX_DIR ENVFIX...}; shift
source bench/index_env.sh
W=$(mktemp -d /tmp/envfix-rss.XXXXXX)
start_index_run "$IDX" "$W"
export ENVFIX_UNPACK_RUNNERS=${RUNNERS:-8}
for e in "$@"; do
  rm -rf "$W/run"; mkdir -p "$W/run"; export ENVFIX_CACHE_DIR=$W/run/c ENVFIX_DATA_DIR=$W/run/d
  /usr/bin/python3 -m venv --without-pip "$W/run/v"; sync
  for step in cold switch; do
    [[ $step == cold ]] && req=("${R1[@]}") || req=("${R2[@]}")
    echo "== $e: $step"
    python3 bench/rss_steps.py "$e" install --threads "${THREADS:-32}" --no-verify -vv --env "$W/run/v" --torch-from index \
      --index-url "$URL" -y "${req[@]}" | grep -v "checked at\|unpacked 1 wheels"
  done
done
