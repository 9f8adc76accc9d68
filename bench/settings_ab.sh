#!/usr/bin/env bash
# One envfix build under several settings (environment variables), cold installs alternating
# setting by setting, then one switch per setting, on one index folder (bench/real_stack.py or
# bench/synth_stack.py output) served on 127.0.0.1: wall, user and system CPU, ru_maxrss. For
# tuning knobs such as ENVFIX_UNPACK_EARLY (docs/performance.md, "Inflating while downloading").
#
# Usage (repository root): bench/settings_ab.sh INDEX_DIR ENVFIX REPS LABEL=VAR=VALUE[,VAR=VALUE] ...
#   e.g. bench/settings_ab.sh /tmp/idx build/envfix 2 off=ENVFIX_UNPACK_EARLY=0 on=
set -u
source bench/index_env.sh
IDX=${1:?usage: bench/settings_ab.sh INDEX_DIR ENVFIX REPS LABEL=VAR=VALUE ...}
E=$(realpath "${2:?envfix}"); REPS=${3:?reps}; shift 3
BASE=${BASE:-/usr/bin/python3}
W=$(mktemp -d /tmp/envfix-settings.XXXXXX)
start_index_run "$IDX" "$W"
fresh() { wait_for_maker; rm -rf "$W/run"; mkdir -p "$W/run"; export ENVFIX_CACHE_DIR=$W/run/c ENVFIX_DATA_DIR=$W/run/d; "$BASE" -m venv --without-pip "$W/run/v"; sync; }
# with LABEL=SETTINGS COMMAND...: COMMAND with the setting's variables set.
with() {
  local label=${1%%=*} vars=${1#*=}; shift
  local -a env=()
  [[ -n $vars ]] && IFS=, read -r -a env <<< "$vars"
  env "${env[@]}" "$@"
}
for rep in $(seq "$REPS"); do for s in "$@"; do
  fresh
  with "$s" /usr/bin/time -f "cold ${s%%=*}: %e s wall, %U user, %S sys, max RSS %M KiB" \
    "$E" install --no-verify --env "$W/run/v" --torch-from index --index-url "$URL" -y "${R1[@]}" 2>&1 | grep wall
done; done
for s in "$@"; do
  fresh
  with "$s" "$E" install --no-verify --env "$W/run/v" --torch-from index --index-url "$URL" -y "${R1[@]}" > /dev/null 2>&1
  with "$s" /usr/bin/time -f "switch ${s%%=*}: %e s wall, %U user, %S sys" \
    "$E" install --no-verify --env "$W/run/v" --torch-from index --index-url "$URL" -y "${R2[@]}" 2>&1 | grep wall
done
