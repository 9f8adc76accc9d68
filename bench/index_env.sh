# Sourced by the bench scripts that drive envfix against an index folder (bench/real_stack.py or
# bench/synth_stack.py output). Run from the repository root. WORK_ROOT: where their work folders
# (venvs, caches) go, default /tmp; another filesystem, e.g. a loop-mounted one, to time its disk.

# serve_index INDEX_DIR WORK_DIR [SECONDS=3600]: serves the folder on 127.0.0.1 (bench/compare.py's
# server) in the background; sets SERVER (its pid) and URL (the simple/ root). The caller kills it.
serve_index() {
  local idx=$1 work=$2 life=${3:-3600}
  python3 - "$idx" "$work/url" "$life" > /dev/null 2>&1 <<'PY' &
import sys, time; sys.path.insert(0, 'bench')
import compare
h, u = compare.serve(sys.argv[1]); open(sys.argv[2], 'w').write(u); time.sleep(float(sys.argv[3]))
PY
  SERVER=$!
  for _ in $(seq 50); do [[ -s $work/url ]] && break; sleep 0.1; done
  URL=$(cat "$work/url")
}

# wait_for_maker: until the ready-tree maker an install started in the background (`envfix cache
# ready`) has ended, so the next timed run neither competes with it nor removes its cache under it.
wait_for_maker() {
  sleep 0.05
  while pgrep -f " cache ready" > /dev/null; do sleep 0.02; done
}

# variant_requirements INDEX_DIR N NAME: the requirements of stack.json's Nth variant (0-based)
# into the array NAME.
variant_requirements() {
  read -r -a "$3" < <(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(' '.join(d['variants'][d['order'][int(sys.argv[2])]]['requirements']))" "$1/stack.json" "$2")
}

# Where no NVIDIA GPU is, the tests' stand-in H200 answers (bench/standin.py).
use_standin_without_gpu() {
  command -v nvidia-smi > /dev/null || eval "$(python3 -c "import sys; sys.path.insert(0, 'bench'); import standin, shlex
print(' '.join('export %s=%s' % (k, shlex.quote(v)) for k, v in standin.h200_env().items()))")"
}

# start_index_run INDEX_DIR WORK_DIR: the index served, WORK_DIR removed and the server stopped at
# exit, the stand-in driver where no GPU is, and the first two variants' requirements in R1, R2.
start_index_run() {
  serve_index "$1" "$2"
  trap "kill $SERVER 2>/dev/null; rm -rf '$2'" EXIT
  use_standin_without_gpu
  variant_requirements "$1" 0 R1
  variant_requirements "$1" 1 R2
}

# start_ab_run SCRIPT INDEX_DIR ENVFIX_A ENVFIX_B [REPS=3]: the arguments of the A/B scripts
# (bench/ab_cold.sh, bench/ab_switch.sh) into IDX, A, B (absolute), REPS, BASE (the venvs'
# interpreter), W (a new work folder), then start_index_run on them.
start_ab_run() {
  local script=$1; shift
  IDX=${1:?usage: $script INDEX_DIR ENVFIX_A ENVFIX_B [REPS]}
  A=$(realpath "${2:?usage: $script INDEX_DIR ENVFIX_A ENVFIX_B [REPS]}")
  B=$(realpath "${3:?usage: $script INDEX_DIR ENVFIX_A ENVFIX_B [REPS]}")
  REPS=${4:-3}
  BASE=${BASE:-/usr/bin/python3}
  W=$(mktemp -d "${WORK_ROOT:-/tmp}/envfix-$(basename "$script" .sh).XXXXXX")
  start_index_run "$IDX" "$W"
}

# start_builds_run SCRIPT INDEX_DIR REPS ENVFIX...: the arguments of the scripts that compare any
# number of builds (bench/ab_builds.sh, bench/warm_steps.sh) into IDX, REPS, BUILDS (an array),
# BASE (the venvs' interpreter), W (a new work folder), then start_index_run on them.
start_builds_run() {
  local script=$1; shift
  IDX=${1:?usage: $script INDEX_DIR REPS ENVFIX...}
  REPS=${2:?usage: $script INDEX_DIR REPS ENVFIX...}
  BUILDS=("${@:3}")
  BASE=${BASE:-/usr/bin/python3}
  W=$(mktemp -d "${WORK_ROOT:-/tmp}/envfix-$(basename "$script" .sh).XXXXXX")
  start_index_run "$IDX" "$W"
}

# first_installs: after start_builds_run, each build installs the first variant once into
# $W/NAME/v0 with caches of its own ($W/NAME/c, $W/NAME/d), so what follows runs warm.
first_installs() {
  local e n
  for e in "${BUILDS[@]}"; do
    n=$(basename "$e"); mkdir -p "$W/$n"
    "$BASE" -m venv --without-pip "$W/$n/v0"
    ENVFIX_CACHE_DIR=$W/$n/c ENVFIX_DATA_DIR=$W/$n/d "$e" install --no-verify --env "$W/$n/v0" \
      --torch-from index --index-url "$URL" -y "${R1[@]}" > /dev/null 2>&1 || echo "$n: the first install failed"
  done
}
