# Helpers the GPU-machine scripts share (sourced): `step LABEL CMD...` runs a command and prints
# "== LABEL: SECONDS s (exit RC)" on fd 3 (the terminal, even when the step's output is
# redirected); `field FILE EXPR` evaluates a Python expression over the JSON document in FILE (d).
exec 3>&1
secs() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$2"; }
step() { # label, command...
  local label=$1; shift
  local t0=$EPOCHREALTIME rc=0
  "$@" || rc=$?
  echo "== $label: $(secs "$t0" "$EPOCHREALTIME") s (exit $rc)" >&3
  return 0
}
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
