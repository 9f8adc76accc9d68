#!/usr/bin/env bash
# The seed's error reproduced for real on the GPU machine, and ended by envfix (issue 7;
# docs/verify.md#the-seeds-error-for-real). One step per line, each with its result; everything
# is logged to $OUT/seed-repro.log (and the JSON documents to $OUT/).
#
#   1. build kernpkg with nvcc three times: 1.0 and 3.0 with sm_80 SASS only (no PTX), 2.0 with
#      sm_80 + sm_90 SASS; wheels by tests/tools/mkwheel.py; a PEP 503 index of them, served on
#      127.0.0.1 by tests/tools/index_server.py
#   2. an environment with the real torch: a hard-linked copy of $TORCH_VENV (nothing of the
#      original changes), kernpkg 1.0 installed with --no-verify
#   3. envfix doctor predicts the failure from _kernpkg_kern.so's fatbin, before anything runs
#   4. running it: "no kernel image is available for execution on the device"
#   5. envfix verify --check-module kernpkg fails the same way (exit 71)
#   6. envfix install kernpkg 2.0 (from the index) fixes it: verification passes, the self-test runs
#   7. envfix install kernpkg 3.0 (sm_80 only again): the check fails, the install undoes itself
#      (exit 65), the environment is byte for byte the one before, kernpkg 2.0 still runs
#   8. envfix verify --driver-only and envfix verify against the real torch
#
# Usage (repository root): bench/h200/seed-repro.sh  [ENVFIX=.h200/bin/envfix TORCH_VENV=/opt/torch/.venv
#                                                     NVCC=nvcc OUT=... WORK=... BUILD_ONLY=1]
# BUILD_ONLY=1 (a machine without a GPU): steps 1-3 only, doctor answering for a stand-in H200
# when ENVFIX_LIBCUDA points at one (TORCH_VENV: any venv with a torch dist-info).
set -uo pipefail
ROOT=$(pwd)
ENVFIX=$(realpath "${ENVFIX:-.h200/bin/envfix}")
TORCH_VENV=${TORCH_VENV:-/opt/torch/.venv}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
OUT=${OUT:-/tmp/envfix-seed-out}
W=${WORK:-/tmp/envfix-seed}
SEED=$ROOT/bench/h200/seed
mkdir -p "$OUT"
LOG=$OUT/seed-repro.log
: >"$LOG"
exec 3>&1
failures=0
say() { echo "$*" | tee -a "$LOG" >&3; }
# step LABEL EXPECTED_EXIT COMMAND...: runs it (output to the log), prints the result line.
step() {
  local label=$1 want=$2; shift 2
  local t0=$EPOCHREALTIME rc=0
  echo "---- $label: $*" >>"$LOG"
  "$@" >>"$LOG" 2>&1 || rc=$?
  local secs
  secs=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$t0" "$EPOCHREALTIME")
  if [[ $rc == "$want" ]]; then say "ok   $label (exit $rc, $secs s)"; else say "FAIL $label (exit $rc, expected $want, $secs s)"; failures=$((failures + 1)); fi
  return 0
}
# json FILE EXPR: a field of a JSON document (python expression over d).
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2" 2>>"$LOG"; }
# expect LABEL ACTUAL WANTED
expect() {
  if [[ $2 == *"$3"* ]]; then say "ok   $1: $2"; else say "FAIL $1: got '$2', expected '$3'"; failures=$((failures + 1)); fi
}

say "seed-repro: envfix $ENVFIX, nvcc $NVCC, torch venv $TORCH_VENV, work $W, log $LOG"
say "python headers: $(ls -d /usr/include/python3.12 2>/dev/null || echo 'none (kernpkg loads its kernels with ctypes either way)')"
"$NVCC" --version | tail -1 | tee -a "$LOG" >&3
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>/dev/null | tee -a "$LOG" >&3
rm -rf "$W"; mkdir -p "$W/wheels" "$W/index/kernpkg"
export ENVFIX_CACHE_DIR=$W/cache

# 1. Three builds of kernpkg.
build() { # VERSION GENCODE...
  local v=$1; shift
  local d=$W/build-$v archs
  mkdir -p "$d/kernpkg"
  archs=$(printf '%s\n' "$@" | sed -n 's/.*code=\(.*\)/\1/p' | paste -sd+)
  "$NVCC" -O2 -shared -Xcompiler -fPIC "$@" -o "$d/_kernpkg_kern.so" "$SEED/kern.cu" || return 1
  sed -e "s/@VERSION@/$v/" -e "s/@ARCHS@/$archs/" "$SEED/kernpkg_init.py" >"$d/kernpkg/__init__.py"
  python3 - "$d" "$v" >"$d/spec.json" <<'PY'
import json, sys
d, v = sys.argv[1], sys.argv[2]
print(json.dumps({"name": "kernpkg", "version": v, "tags": ["py3-none-linux_x86_64"], "root_is_purelib": False,
                  "files": {"_kernpkg_kern.so": {"copy": d + "/_kernpkg_kern.so"},
                            "kernpkg/__init__.py": {"copy": d + "/kernpkg/__init__.py"}}}))
PY
  python3 "$ROOT/tests/tools/mkwheel.py" "$d/spec.json" "$W/wheels" >/dev/null || return 1
  # What the fatbin holds, as envfix reads it (and cuobjdump, where the toolkit has it).
  "$ENVFIX" archs "$d/_kernpkg_kern.so" | sed -n 3p | tee "$d/archs.txt"
  [[ -x ${NVCC%/*}/cuobjdump ]] && "${NVCC%/*}/cuobjdump" --list-elf --list-ptx "$d/_kernpkg_kern.so"
  return 0
}
step "build kernpkg 1.0: sm_80 SASS, no PTX" 0 build 1.0 -gencode arch=compute_80,code=sm_80
step "build kernpkg 2.0: sm_80 + sm_90 SASS" 0 build 2.0 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90
step "build kernpkg 3.0: sm_80 SASS, no PTX (a bad rebuild)" 0 build 3.0 -gencode arch=compute_80,code=sm_80
for v in 1.0 2.0 3.0; do say "     kernpkg $v's fatbin: $(awk '{$1=""; print}' "$W/build-$v/archs.txt")"; done

# The index: PEP 503 pages with sha256 fragments, as pip and envfix read them.
python3 - "$W" <<'PY'
import hashlib, html, os, shutil, sys
w = sys.argv[1]
links = []
for f in sorted(os.listdir(w + "/wheels")):
    shutil.copy(os.path.join(w, "wheels", f), os.path.join(w, "index", "kernpkg", f))
    h = hashlib.sha256(open(os.path.join(w, "wheels", f), "rb").read()).hexdigest()
    links.append('<a href="%s#sha256=%s">%s</a><br>' % (f.replace("+", "%2B"), h, html.escape(f)))
open(w + "/index/index.html", "w").write('<html><body><a href="kernpkg/">kernpkg</a></body></html>\n')
open(w + "/index/kernpkg/index.html", "w").write("<html><body>\n" + "\n".join(links) + "\n</body></html>\n")
PY
# The server lives while its stdin is open: a FIFO this script holds (fd 4) until it exits.
mkfifo "$W/server.stdin"
python3 "$ROOT/tests/tools/index_server.py" --root "$W/index" --port 0 <"$W/server.stdin" >"$W/server.out" 2>>"$LOG" &
exec 4>"$W/server.stdin"
for _ in $(seq 50); do grep -q '^PORT' "$W/server.out" 2>/dev/null && break; sleep 0.1; done
PORT=$(sed -n 's/^PORT //p' "$W/server.out")
fetch() { python3 -c "import sys, urllib.request; sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1]).read())" "$1"; }
INDEX=http://127.0.0.1:$PORT/
step "local index on $INDEX" 0 fetch "${INDEX}kernpkg/"

# envfix install from the index where this envfix has it; otherwise the wheel is fetched from
# the same index over HTTP and installed as a file (the local-wheel path).
install_kernpkg() { # VERSION JSON_OUT [extra args]
  local v=$1 out=$2; shift 2
  local rc=0
  "$ENVFIX" install --python "$PY" --index-url "$INDEX" --json "$@" "kernpkg==$v" >"$out" 2>>"$LOG" || rc=$?
  if [[ $rc == 2 ]]; then
    local f
    f=$(ls "$W/index/kernpkg" | grep "^kernpkg-$v-")
    fetch "${INDEX}kernpkg/${f//+/%2B}" >"$W/$f" || return 90
    echo "(this envfix installs no requirements from an index yet: fetched $f from the index, installed as a file)" >>"$LOG"
    rc=0
    "$ENVFIX" install --python "$PY" --json "$@" "$W/$f" >"$out" 2>>"$LOG" || rc=$?
  fi
  cat "$out" >>"$LOG"
  return $rc
}

# 2. The environment: the real torch, copied by hard links.
cp -al "$TORCH_VENV" "$W/venv" 2>>"$LOG" || cp -a "$TORCH_VENV" "$W/venv"
PY=$W/venv/bin/python3
step "environment $W/venv (torch: $("$PY" -c 'import importlib.metadata as m; print(m.version("torch"))' 2>/dev/null || echo none))" 0 "$PY" -c "import sys"
step "install kernpkg 1.0 (sm_80 only) without verification" 0 install_kernpkg 1.0 "$OUT/install-1.0.json" --no-verify

# 3. doctor, before anything runs.
step "envfix doctor predicts it from the fatbin" 20 "$ENVFIX" doctor --python "$PY" --json
"$ENVFIX" doctor --python "$PY" --json >"$OUT/doctor-1.0.json" 2>>"$LOG"
"$ENVFIX" doctor --python "$PY" >>"$LOG" 2>&1
expect "doctor's exit" "$(json "$OUT/doctor-1.0.json" "d['exit_name']")" "gpu-not-served"
expect "doctor's verdict" "$(json "$OUT/doctor-1.0.json" "d['verdict']['message']")" "_kernpkg_kern.so (_kernpkg_kern) has no kernels for your H200 (sm_90): it holds sm_80"
if [[ ${BUILD_ONLY:-0} == 1 ]]; then
  say "BUILD_ONLY: stopping before the GPU steps ($failures failures)"
  exit $((failures > 0))
fi

# 4. The seed's error, for real.
"$PY" -c "import kernpkg; print(kernpkg.self_test())" >"$OUT/run-1.0.txt" 2>&1
cat "$OUT/run-1.0.txt" >>"$LOG"
expect "running kernpkg 1.0" "$(tail -1 "$OUT/run-1.0.txt")" "no kernel image is available for execution on the device"

# 5. verify says the same, with the op and doctor's words.
step "envfix verify --check-module kernpkg fails" 71 "$ENVFIX" verify --python "$PY" --check-module kernpkg --json
"$ENVFIX" verify --python "$PY" --check-module kernpkg --json >"$OUT/verify-1.0.json" 2>>"$LOG"
"$ENVFIX" verify --python "$PY" --check-module kernpkg >>"$LOG" 2>&1
expect "verify's error" "$(json "$OUT/verify-1.0.json" "d['error']['message']")" "no kernel image is available"
expect "torch's own ops still pass" "$(json "$OUT/verify-1.0.json" "sorted(set(o['status'] for o in d['framework_check']['ops'] if o['op'] != 'module'))")" "['passed']"

# 6. The fixed build through envfix install: verified, kept.
step "envfix install kernpkg 2.0 (sm_80+sm_90), verified" 0 install_kernpkg 2.0 "$OUT/install-2.0.json" --check-module kernpkg
expect "verification after install" "$(json "$OUT/install-2.0.json" "d['verification']['passed']")" "True"
"$PY" -c "import kernpkg; print(kernpkg.self_test())" >"$OUT/run-2.0.txt" 2>&1
cat "$OUT/run-2.0.txt" >>"$LOG"
expect "running kernpkg 2.0" "$(tail -1 "$OUT/run-2.0.txt")" "ran on NVIDIA H200 (sm_90)"
step "envfix verify --check-module kernpkg passes" 0 "$ENVFIX" verify --python "$PY" --check-module kernpkg
step "envfix doctor finds nothing wrong now" 0 "$ENVFIX" doctor --python "$PY"

# 7. A bad build: the install undoes itself.
# Every path of the venv with its link target or sha256, torch/ and nvidia/ (large, untouched) and
# envfix's own records (.envfix/: snapshots and their store) left out; one Python process.
tree() {
  python3 - "$W/venv" <<'PY'
import hashlib, os, sys
root = sys.argv[1]
skip = {os.path.join(root, p) for p in (".envfix", "lib/python3.12/site-packages/torch", "lib/python3.12/site-packages/nvidia")}
out = []
for d, dirs, files in os.walk(root):
    dirs[:] = sorted(x for x in dirs if os.path.join(d, x) not in skip)
    for name in sorted(dirs + files):
        p = os.path.join(d, name)
        rel = os.path.relpath(p, root)
        if os.path.islink(p):
            out.append(f"L {rel} {os.readlink(p)}")
        elif os.path.isdir(p):
            out.append(f"D {rel}")
        else:
            out.append(f"F {rel} {hashlib.sha256(open(p, 'rb').read()).hexdigest()}")
print("\n".join(sorted(out)))
PY
}
tree >"$W/tree-before.txt"
step "envfix install kernpkg 3.0 (sm_80 only): rolled back" 65 install_kernpkg 3.0 "$OUT/install-3.0.json" --check-module kernpkg
tree >"$W/tree-after.txt"
expect "rolled_back" "$(json "$OUT/install-3.0.json" "d['rolled_back']")" "True"
expect "why" "$(json "$OUT/install-3.0.json" "d['error']['message']")" "no kernel image is available"
if cmp -s "$W/tree-before.txt" "$W/tree-after.txt"; then say "ok   environment byte for byte as before ($(wc -l <"$W/tree-before.txt") entries outside torch/ and nvidia/)"; else say "FAIL environment differs after the rollback"; diff "$W/tree-before.txt" "$W/tree-after.txt" | head -20 | tee -a "$LOG"; failures=$((failures + 1)); fi
expect "kernpkg after the rollback" "$("$PY" -c 'import kernpkg; print(kernpkg.__version__, kernpkg.self_test())' 2>&1 | tail -1)" "2.0 kernpkg 2.0"

# 8. Both levels against the real torch, timed.
step "envfix verify --driver-only" 0 "$ENVFIX" verify --driver-only
"$ENVFIX" verify --driver-only | tee -a "$LOG" >&3
step "envfix verify --python $TORCH_VENV/bin/python3" 0 "$ENVFIX" verify --python "$TORCH_VENV/bin/python3"
"$ENVFIX" verify --python "$TORCH_VENV/bin/python3" --json >"$OUT/verify-torch.json" 2>>"$LOG"
"$ENVFIX" verify --python "$TORCH_VENV/bin/python3" | tee -a "$LOG" >&3
say "seed-repro: $failures failures"
exit $((failures > 0))
