#!/usr/bin/env bash
# The real torch stack on the GPU machine (docs/performance.md, "Where each target stands, and why"): the torch
# 2.11.0+cu130 installed in $SRC_PY's environment is packed back into wheels
# (../shared/tools/repack-index.py), installed by envfix into a venv it creates, imported on the
# GPU, reinstalled, killed in the middle of a replace and recovered, then installed by pip (and
# uv where present) for comparison. Prints one line per step with its time.
#
# Usage (repository root): bench/install_h200.sh   [ENVFIX=.h200/bin/envfix SRC_PY=… BASE=… WORK=…]
set -euo pipefail
ENVFIX=${ENVFIX:-.h200/bin/envfix}
SRC_PY=${SRC_PY:-/opt/torch/.venv/bin/python3}
BASE=${BASE:-/usr/bin/python3.12}
REPACK=${REPACK:-../shared/tools/repack-index.py}
W=${WORK:-/tmp/envfix-h200}
PACKAGES=${PACKAGES:-torch torchvision torchaudio}
MAIN=${MAIN:-torch}  # the distribution reinstalled alone
ENVFIX=$(realpath "$ENVFIX")
export ENVFIX_CACHE_DIR=$W/cache

source "$(dirname "$0")/steps.sh"

rm -rf "$W"; mkdir -p "$W"
# shellcheck disable=SC2086
step "repack $PACKAGES" "$SRC_PY" "$REPACK" "$W/idx" $PACKAGES >"$W/repack.log" 2>&1
step "repack pip" "$SRC_PY" "$REPACK" "$W/pipidx" pip --no-deps >>"$W/repack.log" 2>&1
wheels=("$W"/idx/files/*.whl)
echo "   ${#wheels[@]} wheels, $(du -sh "$W/idx/files" | cut -f1)"

step "envfix: new venv + install the stack" "$ENVFIX" install --json --venv "$W/v" --create --base-python "$BASE" "${wheels[@]}" >"$W/install.json" 2>"$W/install.err"
if [[ $(field "$W/install.json" "(d.get('error') or {}).get('name', '')") == requirements-unmet ]]; then
  # The repacked closure lacks something torch requires: say what, and install without it.
  field "$W/install.json" "'   ' + d['error']['message']"
  rm -rf "$W/v"
  step "envfix: new venv + install the stack, --no-deps" "$ENVFIX" install --json --no-deps --venv "$W/v" --create --base-python "$BASE" "${wheels[@]}" >"$W/install.json" 2>"$W/install.err"
fi
field "$W/install.json" "f\"   {len(d['installed'])} installed, {d['transaction']['files_written']} files, {d['transaction']['bytes_written']/2**30:.2f} GiB, {d['transaction']['moves']} moves; stage {d['transaction']['seconds_stage']:.2f} s, commit {d['transaction']['seconds_commit']:.2f} s, switch {d['transaction']['seconds_moving']*1000:.1f} ms\"" || tail -3 "$W/install.err"
step "import torch on the GPU" "$W/v/bin/python" -c "import torch; print('  ', torch.__version__, torch.cuda.get_device_name(0), torch.ones(4, device='cuda').sum().item())"

torch_whl=$(ls "$W"/idx/files/"$MAIN"-*.whl)
step "envfix: reinstall $MAIN alone" "$ENVFIX" install --json --env "$W/v" --force-reinstall "$torch_whl" >"$W/reinstall.json" 2>"$W/reinstall.err"
field "$W/reinstall.json" "f\"   stage {d['transaction']['seconds_stage']:.2f} s, commit {d['transaction']['seconds_commit']:.2f} s, {d['transaction']['moves']} moves, switch {d['transaction']['seconds_moving']*1000:.1f} ms\""

# Killed in the middle of the moves (the fault points before the last four are one per move),
# then after the commit point: recover, import.
n=$("$ENVFIX" install -v --env "$W/v" --force-reinstall "$torch_whl" 2>&1 | sed -n 's/.*debug: \([0-9]*\) fault points passed.*/\1/p')
m=$(field "$W/reinstall.json" "d['transaction']['moves']")
echo "   $n fault points in a $MAIN reinstall, $m moves"
for p in $((n - 4 - m / 2)) $((n - 2)); do
  step "envfix killed at fault point $p of $n" env ENVFIX_FAULT_AFTER=$p "$ENVFIX" install --env "$W/v" --force-reinstall "$torch_whl" >/dev/null 2>&1
  step "envfix recover" "$ENVFIX" recover --env "$W/v"
  step "import torch after recovery" "$W/v/bin/python" -c "import torch; print('  ', torch.__version__, torch.cuda.get_device_name(0))"
done
ls -a "$W/v" | grep -c envfix | sed 's/^/   envfix files left in the venv: /' || true

step "envfix: a venv with pip" "$ENVFIX" install --venv "$W/vp" --create --base-python "$BASE" "$W"/pipidx/files/pip-*.whl >/dev/null 2>&1
step "pip install the stack (--no-deps --no-index, compiles bytecode)" "$W/vp/bin/python" -m pip install -q --no-deps --no-index --disable-pip-version-check "${wheels[@]}"
if command -v uv >/dev/null; then
  export UV_CACHE_DIR=$W/uv-cache
  for run in cold warm; do
    "$ENVFIX" install --venv "$W/vu-$run" --create --base-python "$BASE" "$W"/pipidx/files/pip-*.whl >/dev/null 2>&1
    step "uv pip install the stack ($run cache)" uv pip install -q --no-deps --offline --python "$W/vu-$run/bin/python" "${wheels[@]}"
  done
fi
