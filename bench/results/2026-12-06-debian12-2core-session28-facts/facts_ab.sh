#!/usr/bin/env bash
# local: warm install into w (its background facts run waited for), then the switch -vv; "stale":
# distutils-precedence.pth rewritten (a new inode) before the switch, as without the refresh.
set -u
source bench/index_env.sh
IDX=/tmp/s28/idx; W=$(mktemp -d /tmp/s28f.XXXX); E=$(realpath ${ENVFIX:-build/envfix})
start_index_run "$IDX" "$W"
export ENVFIX_CACHE_DIR=$W/c ENVFIX_DATA_DIR=$W/d
inst() { "$E" install --no-verify --torch-from index --index-url "$URL" -y "$@"; }
python3 -m venv --without-pip "$W/v"
inst --env "$W/v" "${R1[@]}" > /dev/null 2>&1; inst --env "$W/v" "${R2[@]}" > /dev/null 2>&1
wait_for_maker
for rep in 1 2 3; do for mode in fresh stale; do
  rm -rf "$W/w"; python3 -m venv --without-pip "$W/w"
  inst --env "$W/w" "${R1[@]}" > /dev/null 2>&1; wait_for_maker
  # The synthetic stack brings no .pth: one as setuptools' would be, learnt again ("fresh", as the
  # install that brought it does now) or not ("stale", as before).
  echo "import os; os.environ.get('X', 'local')" > "$(ls -d "$W"/w/lib/python3*/site-packages)/shim-precedence.pth"
  [[ $mode == fresh ]] && "$E" cache ready -q --no-trees --facts "$W/w/bin/python"
  /usr/bin/time -f "wall %e" "$E" install -vv --no-verify --torch-from index --index-url "$URL" -y --env "$W/w" "${R2[@]}" 2> "$W/log" > /dev/null
  wait_for_maker
  echo "$mode $rep $(grep -oE 'planned [0-9]+ ms' "$W/log") $(grep -oE 'facts of [^:]*: [a-z ]+' "$W/log" | head -1 | sed 's/.*: //') $(grep wall "$W/log")"
done; done
