#!/usr/bin/env bash
# Two envfix builds on the work after a cold install, alternating run by run, on one index folder
# (bench/real_stack.py or bench/synth_stack.py output) served on 127.0.0.1: a switch to the second
# variant with the first one's caches (the second variant downloaded and unpacked during the
# switch), the rollback of that switch, a warm install into a new venv, the first switch of a venv
# pip made, and a switch back and forth with both variants unpacked (with the install's own steps
# from -vv, medians). Where no
# NVIDIA GPU is, the tests' stand-in H200 answers (bench/standin.py). docs/performance.md ("A
# switch leaves unchanged files in place").
#
# Usage (repository root): bench/ab_switch.sh INDEX_DIR ENVFIX_A ENVFIX_B [REPS=3]
set -u
source bench/index_env.sh
start_ab_run bench/ab_switch.sh "$@"
install() { local e=$1 v=$2; shift 2; "$e" install --no-verify --env "$v" --torch-from index --index-url "$URL" -y "$@"; }  # not for `timed`
timed() { local what=$1; shift; /usr/bin/time -f "$what: %e s wall, %U user, %S sys, max RSS %M KiB" "$@" 2>&1 | grep -E "wall|^done in"; }
for e in "$A" "$B"; do  # each build its own caches with both variants, for the cached runs below
  mkdir -p "$W/$(basename "$e")"; C=$W/$(basename "$e")
  ENVFIX_CACHE_DIR=$C/c ENVFIX_DATA_DIR=$C/d "$BASE" -m venv --without-pip "$C/v"
  ENVFIX_CACHE_DIR=$C/c ENVFIX_DATA_DIR=$C/d install "$e" "$C/v" "${R1[@]}" > /dev/null 2>&1
  ENVFIX_CACHE_DIR=$C/c ENVFIX_DATA_DIR=$C/d install "$e" "$C/v" "${R2[@]}" > /dev/null 2>&1
  ENVFIX_CACHE_DIR=$C/c ENVFIX_DATA_DIR=$C/d install "$e" "$C/v" "${R1[@]}" > /dev/null 2>&1
done
# A venv pip made (what users bring: ComfyUI's, a pip-installed torch), copied for each run.
"$BASE" -m venv "$W/pipmodel" && "$W/pipmodel/bin/pip" install -q --no-index --no-compile --find-links "$IDX/files" "${R1[@]}"
for rep in $(seq "$REPS"); do for e in "$A" "$B"; do
  n=$(basename "$e")
  # The first switch of that venv: envfix hashes its files for the snapshot once.
  rm -rf "$W/run"; mkdir -p "$W/run"
  export ENVFIX_CACHE_DIR=$W/run/c ENVFIX_DATA_DIR=$W/run/d
  cp -a "$W/pipmodel" "$W/run/v"; sync; sleep 2
  timed "pip-made-switch $n" "$e" install --no-verify --env "$W/run/v" --torch-from index --index-url "$URL" -y "${R2[@]}"
  # Switch with only the first variant cached, then its rollback.
  rm -rf "$W/run"; mkdir -p "$W/run"
  export ENVFIX_CACHE_DIR=$W/run/c ENVFIX_DATA_DIR=$W/run/d
  "$BASE" -m venv --without-pip "$W/run/v"
  install "$e" "$W/run/v" "${R1[@]}" > /dev/null 2>&1; sync
  timed "switch $n" "$e" install --no-verify --env "$W/run/v" --torch-from index --index-url "$URL" -y "${R2[@]}"
  timed "rollback $n" "$e" rollback --env "$W/run/v" -y
  # Warm install and a switch back and forth with both variants unpacked.
  export ENVFIX_CACHE_DIR=$W/$n/c ENVFIX_DATA_DIR=$W/$n/d
  rm -rf "$W/$n/w"; "$BASE" -m venv --without-pip "$W/$n/w"; sync
  timed "warm $n" "$e" install --no-verify --env "$W/$n/w" --torch-from index --index-url "$URL" -y "${R1[@]}"
  for r in R2 R1; do
    declare -n req=$r
    install "$e" "$W/$n/v" -vv "${req[@]}" 2>&1 | grep -E "^debug: [a-z][a-z ,-]+: [0-9]+ ms|^done in" | grep -v "^debug: unpacked " | sed "s|^|cached-switch $n |"
  done
done; done | python3 -c "
import re, statistics, sys, collections
runs = collections.defaultdict(list); steps = collections.defaultdict(list); order = []
for line in sys.stdin:
    m = re.match(r'(\w[\w-]*) (\S+): ([0-9.]+) s wall, ([0-9.]+) user, ([0-9.]+) sys, max RSS (\d+) KiB', line)
    if m:
        runs[(m[1], m[2])].append((float(m[3]), float(m[4]) + float(m[5]), int(m[6]) // 1024)); continue
    m = re.match(r'cached-switch (\S+) (?:debug: ([a-z][a-z ,-]+): (\d+) ms|done in ([0-9.]+) s)', line)
    if m:
        key = m[2] or 'whole install (done in)'
        if key not in order: order.append(key)
        steps[(key, m[1])].append(int(m[3]) if m[3] else float(m[4]) * 1000)
names = sorted({n for _, n in runs})
med = statistics.median
for what in ('switch', 'rollback', 'warm', 'pip-made-switch'):
    for n in names:
        r = runs.get((what, n))
        if r: print(f'{what:9s} {n:24s} wall {med(x[0] for x in r):.2f} s ({min(x[0] for x in r):.2f}-{max(x[0] for x in r):.2f}, n={len(r)}), CPU {med(x[1] for x in r):.2f} s, max RSS {med(x[2] for x in r):.0f} MiB')
print('cached switch, install steps (ms, median):' + ''.join(f' | {n}' for n in names))
for k in order: print(f'  {k:38s}' + ''.join(f' | {med(steps[(k, n)]):7.0f}' for n in names if steps.get((k, n))))
"
