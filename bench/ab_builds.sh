#!/usr/bin/env bash
# Several envfix builds (or one build under several settings, through wrapper scripts) alternating
# run by run on one index folder (bench/real_stack.py or bench/synth_stack.py output) served on
# 127.0.0.1: each repetition, for each program, a cold install into a new venv with empty caches,
# then the switch to the second variant; wall, CPU, ru_maxrss, and the -vv lines that say what a
# switch waited for (torch's check, its large files' inflating, the install's last steps).
# docs/performance.md.
#
# Usage (repository root): bench/ab_builds.sh INDEX_DIR REPS ENVFIX...
#   [BASE=/usr/bin/python3] [WARM=1: also a warm install into a second venv after the cold one]
#   [DROP=1: the page cache dropped before each cold install, as bench/compare.py does (root)]
#   [CHAINS="plain record": each repetition runs every build once per chain named. plain (the
#   default): cold into v, [warm into w,] switch v. record: bench/compare.py's chain, cold into v,
#   v deleted, warm into w, switch w: whether deleting a 17 000-file tree first slows the switch;
#   warmswitch: the same without deleting v, which tells the deletion from the venv switched]
#   e.g. on the GPU machine, after bench/real_stack.py made /tmp/idx:
#   BASE=/usr/bin/python3.12 bench/ab_builds.sh /tmp/idx 3 .h200/bin/envfix-old .h200/bin/envfix-new
set -u
source bench/index_env.sh
start_builds_run bench/ab_builds.sh "$@"
timed() {  # LABEL PROGRAM VENV INSTALL-ARGUMENTS...: one install, its time and its output
  local label=$1 e=$2 venv=$3; shift 3
  /usr/bin/time -f "$label: %e s wall, %U user, %S sys, max RSS %M KiB" "$e" install --no-verify --env "$venv" \
    --torch-from index --index-url "$URL" -y "$@" 2>&1
}
run() {  # LABEL PROGRAM VENV REQUIREMENTS...: with the -vv lines that say what it waited for
  timed "$1" "$2" "$3" -vv "${@:4}" |
    grep -E "wall|^done in|torch-[^ ]*: checked at|its large files|unpacked [0-9]+ wheels \(|inflated while downloading|compressed\): its bytes|snapshot taken|RECORD files written|committed|flushed|made durable|removals planned|present captured|handed over"
}
warm() {  # LABEL PROGRAM VENV: the first variant into a new venv, caches full
  "$BASE" -m venv --without-pip "$3"; sync
  timed "$1" "$2" "$3" -vv "${R1[@]}" | grep -E "wall|made durable|opened and planned|checks:|folders made|files staged|RECORD files written|moves planned|committed"
}
read -r -a CHAIN_LIST <<< "${CHAINS:-plain}"
for rep in $(seq "$REPS"); do for chain in "${CHAIN_LIST[@]}"; do for e in "${BUILDS[@]}"; do
  n=$(basename "$e")
  (( ${#CHAIN_LIST[@]} > 1 )) && n="$n/$chain"
  rm -rf "$W/run"; mkdir -p "$W/run"
  export ENVFIX_CACHE_DIR=$W/run/c ENVFIX_DATA_DIR=$W/run/d
  "$BASE" -m venv --without-pip "$W/run/v"; sync
  [[ -n ${DROP:-} ]] && echo 3 > /proc/sys/vm/drop_caches
  run "cold $n" "$e" "$W/run/v" "${R1[@]}"
  sync
  if [[ $chain == record || $chain == warmswitch ]]; then
    [[ $chain == record ]] && { rm -rf "$W/run/v"; sync; }
    warm "warm $n" "$e" "$W/run/w"
    sync
    run "switch $n" "$e" "$W/run/w" "${R2[@]}"
    continue
  fi
  [[ -n ${WARM:-} ]] && warm "warm $n" "$e" "$W/run/w"
  run "switch $n" "$e" "$W/run/v" "${R2[@]}"
done; done; done
