#!/usr/bin/env bash
# back-to-back warm installs without a sync between (the maker's links pending or committed)
cd /work/main; source bench/index_env.sh
WORK_ROOT=/tmp/lo start_builds_run x /tmp/synth02 "$@"
first_installs
for rep in $(seq "$REPS"); do for e in "${BUILDS[@]}"; do
  n=$(basename "$e"); rm -rf "$W/$n/v"; "$BASE" -m venv --without-pip "$W/$n/v"
  ENVFIX_CACHE_DIR=$W/$n/c ENVFIX_DATA_DIR=$W/$n/d /usr/bin/time -f "warm $n: %e s" "$e" install -vv --no-verify --env "$W/$n/v" --torch-from index --index-url "$URL" -y "${R1[@]}" 2>&1 | grep -E "wall|warm |installed [0-9]|committed:" | tr '\n' ' '; echo
  wait_for_maker
done; done
