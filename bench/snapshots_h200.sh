#!/usr/bin/env bash
# The real torch stack on the GPU machine, from an index (docs/performance.md, "Snapshots and
# rollback"): the torch 2.11.0+cu130 stack installed in $SRC_PY's environment is packed back into
# wheels (../shared/tools/repack-index.py) and served on 127.0.0.1; envfix installs it from there
# into a new venv with an empty wheel cache (cold), then into a second venv (warm: every wheel
# cached), imports it on the GPU, and rolls the first venv back to empty and forward again (the
# whole stack out and back in from the snapshot store, offline). Prints one line per step.
#
# Usage (repository root): bench/snapshots_h200.sh   [ENVFIX=.h200/bin/envfix SRC_PY=… BASE=… WORK=… PORT=…]
set -euo pipefail
ENVFIX=${ENVFIX:-.h200/bin/envfix}
SRC_PY=${SRC_PY:-/opt/torch/.venv/bin/python3}
BASE=${BASE:-/usr/bin/python3.12}
REPACK=${REPACK:-../shared/tools/repack-index.py}
W=${WORK:-/tmp/envfix-h200-snap}
PORT=${PORT:-8765}
ENVFIX=$(realpath "$ENVFIX")
export ENVFIX_CACHE_DIR=$W/cache ENVFIX_DATA_DIR=$W/data ENVFIX_CONFIG_DIR=$W/config

source "$(dirname "$0")/steps.sh"

rm -rf "$W"; mkdir -p "$W"
step "repack torch torchvision torchaudio" "$SRC_PY" "$REPACK" "$W/idx" torch torchvision torchaudio >"$W/repack.log" 2>&1
echo "   $(ls "$W"/idx/files/*.whl | wc -l) wheels, $(du -sh "$W/idx/files" | cut -f1)"
python3 -m http.server -d "$W/idx" "$PORT" --bind 127.0.0.1 >"$W/http.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
sleep 1
# --no-verify: the install timings are the install alone (verify is timed in docs/verify.md)
IDX=(--torch-from index --index-url "http://127.0.0.1:$PORT/simple/" --variant cu130 -y --no-verify)

step "envfix plan" "$ENVFIX" plan --json --python "$BASE" "${IDX[@]:0:6}" >"$W/plan.json" 2>"$W/plan.err"
field "$W/plan.json" "f\"   plan: torch {d['torch']} {d['variant']}, {len(d['install'])} wheels\"" || tail -3 "$W/plan.err"

step "envfix install, cold cache, new venv" "$ENVFIX" install --json --venv "$W/v1" --create --base-python "$BASE" "${IDX[@]}" >"$W/cold.json" 2>"$W/cold.err"
if [[ $(field "$W/cold.json" "(d.get('error') or {}).get('name', '')") == requirements-unmet ]]; then
  field "$W/cold.json" "'   ' + d['error']['message']"
  step "envfix install, cold cache, --no-deps" "$ENVFIX" install --json --no-deps --venv "$W/v1" "${IDX[@]}" >"$W/cold.json" 2>"$W/cold.err"
fi
if ! field "$W/cold.json" "d['transaction']['id']" >/dev/null 2>&1; then
  # The plan could not be made from the repacked index (what it lacks is in cold.err): the
  # snapshot and rollback figures below are still measured, on the stack installed from files.
  echo "   index install failed: $(tail -1 "$W/cold.err")"
  rm -rf "$W/v1"
  step "envfix install from the wheel files, --no-deps" "$ENVFIX" install --json --no-deps --venv "$W/v1" --create --base-python "$BASE" "$W"/idx/files/*.whl >"$W/cold.json" 2>"$W/cold.err"
fi
field "$W/cold.json" "f\"   {len(d['installed'])} installed, {d['transaction']['files_written']} files, stage {d['transaction']['seconds_stage']:.2f} s, commit {d['transaction']['seconds_commit']:.2f} s, snapshot {d['snapshot']}\"" || tail -3 "$W/cold.err"
step "import torch on the GPU (v1)" "$W/v1/bin/python" -c "import torch; print('  ', torch.__version__, torch.cuda.get_device_name(0))"

step "envfix install, warm cache, second venv" "$ENVFIX" install --json --venv "$W/v2" --create --base-python "$BASE" "${IDX[@]}" >"$W/warm.json" 2>"$W/warm.err"
field "$W/warm.json" "f\"   from cache: {sum(x['from_cache'] for x in d['downloads'])}/{len(d['downloads'])}, stage {d['transaction']['seconds_stage']:.2f} s\"" || tail -3 "$W/warm.err"
step "import torch on the GPU (v2)" "$W/v2/bin/python" -c "import torch; print('  ', torch.__version__, torch.cuda.get_device_name(0))"

kill $server; trap - EXIT
step "envfix snapshot (v1, by hand)" "$ENVFIX" snapshot --json --env "$W/v1" --name installed >"$W/snap.json" 2>"$W/snap.err"
field "$W/snap.json" "f\"   {d['snapshot']['files']} files, {d['snapshot']['bytes']/2**30:.2f} GiB, hashed {d['stats']['hashed']}, newly stored {d['stats']['stored']}, {d['stats']['seconds']:.3f} s\"" || tail -3 "$W/snap.err"
# The index is down from here: everything comes from the snapshot store.
step "envfix rollback to before the install (stack out)" "$ENVFIX" rollback --json --env "$W/v1" 1 >"$W/rb1.json" 2>"$W/rb1.err"
field "$W/rb1.json" "f\"   out {d['files_out']} files, snapshot {d['seconds_snapshot']:.3f} s, moving {d['seconds_moving']*1000:.1f} ms\"" || tail -3 "$W/rb1.err"
step "envfix rollback (stack back in from the store)" "$ENVFIX" rollback --json --env "$W/v1" installed >"$W/rb2.json" 2>"$W/rb2.err"
field "$W/rb2.json" "f\"   in {d['files_in']} files, snapshot {d['seconds_snapshot']:.3f} s, moving {d['seconds_moving']*1000:.1f} ms\"" || tail -3 "$W/rb2.err"
step "import torch after the rollback" "$W/v1/bin/python" -c "import torch; print('  ', torch.__version__, torch.cuda.get_device_name(0), torch.ones(4, device='cuda').sum().item())"
for i in 1 2 3 4; do
  step "envfix rollback, back and forth ($i)" "$ENVFIX" rollback --env "$W/v1" >/dev/null 2>&1
done
step "import torch after four more rollbacks" "$W/v1/bin/python" -c "import torch; print('  ', torch.__version__, torch.cuda.get_device_name(0))"
"$ENVFIX" history --env "$W/v1" | cut -c1-120
step "envfix snapshot gc --keep 1" "$ENVFIX" snapshot gc --env "$W/v1" --keep 1
du -sh "$W/v1" "$W/v1/.envfix" "$W/cache"
