#!/usr/bin/env bash
# Does a warm install's commit wait for the disk because a cold install wrote gigabytes just
# before? One cold install (its caches filled), then warm installs of the same stack into new
# venvs after growing pauses (0, 5, 10, 20, 40 s), each preceded by a probe of the disk: 2.5 MB
# (what the warm install writes itself) written with O_DSYNC. On the GPU machine a warm install's
# "writing the files back" took 14-35 ms in the harnesses that alternate cold and warm runs, 0 ms
# in bench/commit_trace.sh's untraced runs later (docs/performance.md).
#
# Usage (repository root): bench/warm_after_cold.sh INDEX_DIR ENVFIX [PAUSES="0 5 10 20 40"]
#   [BASE=/usr/bin/python3; WORK_ROOT=/tmp]
set -u
source bench/index_env.sh
start_builds_run bench/warm_after_cold.sh "$1" 1 "$(realpath "${2:?usage: bench/warm_after_cold.sh INDEX_DIR ENVFIX [PAUSES]}")"
e=${BUILDS[0]}; n=$(basename "$e")
probe_disk() {
  local t0=$EPOCHREALTIME
  dd if=/dev/zero of="$W/probe" bs=2560k count=1 oflag=dsync status=none
  python3 -c "print(f'disk probe (2.5 MB, O_DSYNC) {($EPOCHREALTIME - $t0) * 1e3:.0f} ms', end='; ')"
  rm -f "$W/probe"
}
for round in 1 2; do
  rm -rf "$W/$n"; mkdir -p "$W/$n"; sync
  "$BASE" -m venv --without-pip "$W/$n/v0"
  /usr/bin/time -f "round $round cold: %e s wall" env ENVFIX_CACHE_DIR=$W/$n/c ENVFIX_DATA_DIR=$W/$n/d "$e" install --no-verify \
    --env "$W/$n/v0" --torch-from index --index-url "$URL" -y "${R1[@]}" 2>&1 | grep wall
  wait_for_maker
  for pause in ${PAUSES:-0 5 10 20 40}; do
    sleep "$pause"
    rm -rf "$W/$n/v"; "$BASE" -m venv --without-pip "$W/$n/v"; sync
    echo -n "round $round, $pause s more: "; probe_disk
    ENVFIX_CACHE_DIR=$W/$n/c ENVFIX_DATA_DIR=$W/$n/d /usr/bin/time -f "%e s wall" "$e" install -vv --no-verify --env "$W/$n/v" \
      --torch-from index --index-url "$URL" -y "${R1[@]}" 2>&1 | grep -E "wall|debug: (committed|made durable|installed [0-9]+ ms)" |
      sed -E 's/debug: made durable one by one: [0-9]+ files brought in and [0-9]+ folders changed, in/durable/; s/; [0-9]+ more brought in were on the disk already//' | tr '\n' ' '
    echo
    wait_for_maker
  done
done
