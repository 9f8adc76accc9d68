#!/usr/bin/env bash
# The doctor/check run on the GPU machine (the lead runs it; docs/doctor.md, docs/check.md):
# envfix doctor on the real torch install (text, --json, --run), envfix check next to
# `python -m pip check`, and the warm doctor time over 20 runs.
#
# Usage: bench/doctor_h200.sh [ENVFIX] [PYTHON]   (defaults: .h200/bin/envfix /opt/torch/.venv/bin/python3)
set -u
E=${1:-.h200/bin/envfix}
P=${2:-/opt/torch/.venv/bin/python3}
OUT=${OUT:-/tmp/envfix-doctor-h200}
mkdir -p "$OUT"
export ENVFIX_CACHE_DIR="$OUT/cache"

echo "== envfix doctor (cold)"
/usr/bin/time -f "cold: %e s wall" "$E" doctor --python "$P"; echo "exit $?"
echo "== envfix doctor --json"
"$E" doctor --json --python "$P" > "$OUT/doctor.json"; echo "exit $?"
python3 - "$OUT/doctor.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
print("framework:", {k: j["framework"][k] for k in ("version", "dist_version", "build", "evidence", "cuda")})
print("runtime:", j["runtime"])
for lib in j["libraries"]:
    if lib["package"] == "torch":
        print("torch lib", lib["shown"], lib["arch_list"])
print("gpus:", [(g["name"], g["sm"], g["served"], g["kind"], g["target"]) for g in j["gpus"]])
print("findings:", [(f["id"], f["severity"], f["message"]) for f in j["findings"]])
EOF
echo "== envfix doctor --run"
"$E" doctor --run --python "$P"; echo "exit $?"
echo "== envfix check vs pip check"
"$E" check --json --python "$P" > "$OUT/check.json"; echo "envfix check exit $?"
"$P" -m pip check --disable-pip-version-check > "$OUT/pip-check.txt"; echo "pip check exit $?"
python3 - "$OUT/check.json" "$OUT/pip-check.txt" <<'EOF'
import json, re, sys
canon = lambda n: re.sub(r"[-_.]+", "-", n).lower()
ours = {(canon(p["name"]), p["kind"], p["dependency"] or "") for p in json.load(open(sys.argv[1]))["problems"]}
pip = set()
for line in open(sys.argv[2]):
    line = line.strip()
    who = canon(line.split(" ")[0]) if line else ""
    m = re.search(r" requires (\S+), which is not installed\.$", line)
    if m: pip.add((who, "missing", canon(m.group(1))))
    m = re.search(r" has requirement (.+?), but you have ", line)
    if m: pip.add((who, "conflict", canon(re.split(r"[<>=!~;\[ (@]", m.group(1))[0])))
    if line.endswith(" is not supported on this platform"): pip.add((who, "unsupported", ""))
print("same findings" if ours == pip else "DIFFERENT")
print("only envfix:", sorted(ours - pip)); print("only pip:", sorted(pip - ours)); print("both:", sorted(ours & pip))
EOF
echo "== warm doctor, 20 runs"
"$E" doctor --python "$P" > /dev/null
start=$(date +%s%N)
for i in $(seq 20); do "$E" doctor --python "$P" > /dev/null; done
end=$(date +%s%N)
echo "warm doctor: $(( (end - start) / 20000000 )) ms per run (mean of 20)"
start=$(date +%s%N)
for i in $(seq 20); do "$E" probe > /dev/null; done
end=$(date +%s%N)
echo "probe alone: $(( (end - start) / 20000000 )) ms per run (mean of 20)"
start=$(date +%s%N)
for i in $(seq 20); do "$E" --version > /dev/null; done
end=$(date +%s%N)
echo "process start (--version): $(( (end - start) / 20000000 )) ms per run (mean of 20)"
# Where a warm doctor's time goes there (compare.py's doctor took 60-80 ms of CPU on the GPU
# machine, against 10 ms here on bench/doctor_bench.py's venv shaped like it): the programs it
# starts, and its system calls by count and time (docs/performance.md).
echo "== warm doctor -vv (what it took from its caches, and when each step ended), 5 runs"
for i in 1 2 3 4 5; do "$E" doctor -vv --python "$P" 2>&1 >/dev/null | grep '^debug' | { [[ $i == 1 ]] && cat || grep steps; }; done
# STRACE, PERF: programs to use where the machine has none (../shared/tools/carry-to-h200 /usr/bin/strace).
ST=${STRACE:-$(command -v strace)}
if [[ -n $ST ]]; then
  echo "== warm doctor under strace"
  "$ST" -f -qq -e trace=execve -o "$OUT/doctor-execve.txt" "$E" doctor --python "$P" > /dev/null
  grep -v ENOENT "$OUT/doctor-execve.txt" | cut -c1-200
  "$ST" -f -c -o "$OUT/doctor-syscalls.txt" "$E" doctor --python "$P" > /dev/null; head -25 "$OUT/doctor-syscalls.txt"
  "$ST" -f -T -ttt -o "$OUT/doctor-trace.txt" "$E" doctor --python "$P" > /dev/null
  echo "slowest calls:"; python3 bench/commit_trace.py "$OUT/doctor-trace.txt" | sed -n '/slowest calls/,/flushing calls/p' | cut -c1-220
fi
PF=${PERF:-$(command -v perf)}
if [[ -n $PF ]]; then
  echo "== 20 warm doctors under perf (cpu-clock samples)"
  "$PF" record -q -e cpu-clock -F 20000 -g -o "$OUT/doctor.perf" -- bash -c "for i in \$(seq 20); do '$E' doctor --python '$P' > /dev/null; done" 2>&1 | tail -3
  "$PF" report -q -i "$OUT/doctor.perf" --stdio --no-children --sort comm,dso,sym 2>/dev/null | grep -v '^$' | grep -E '^ +[0-9]' | head -40
  "$PF" report -q -i "$OUT/doctor.perf" --stdio --children --sort sym -g none 2>/dev/null | grep -E '^ +[0-9]' | head -40
  rm -f "$OUT/doctor.perf"
fi
