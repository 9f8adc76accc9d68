#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in build-fuzz/ and runs each for SECONDS (default 600),
# one after another. New inputs go to build-fuzz/corpus/<target>/ (seeded from
# tests/fuzz/corpus/<target>/), crashes to build-fuzz/artifacts/<target>/; the run stops at the
# first crash. docs/fuzzing.md says more.
#   tests/fuzz/run_fuzzers.sh [SECONDS] [fuzz_target ...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-600}
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  for f in "$root"/tests/fuzz/fuzz_*.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi
ENVFIX_DEPS=fuzz source "$root/scripts/deps.sh"
out=$root/build-fuzz
CC=clang CXX=clang++ cmake -S "$root" -B "$out" -G Ninja -DENVFIX_FUZZ=ON -DENVFIX_BUILD_TESTS=OFF >/dev/null
ninja -C "$out" "${targets[@]}"
for t in "${targets[@]}"; do
  case $t in
    fuzz_version|fuzz_specifier|fuzz_wheel_name) dict=pep440 ;;
    fuzz_marker|fuzz_requirement) dict=pep508 ;;
    fuzz_metadata) dict=metadata ;;
    *) dict= ;;
  esac
  args=(-max_total_time="$secs" -max_len=4096 -print_final_stats=1 -artifact_prefix="$out/artifacts/$t/")
  [[ -n $dict ]] && args+=(-dict="$root/tests/fuzz/dict/$dict.dict")
  mkdir -p "$out/corpus/$t" "$out/artifacts/$t"
  echo "== $t: ${secs}s" >&2
  "$out/tests/fuzz/$t" "${args[@]}" "$out/corpus/$t" "$root/tests/fuzz/corpus/$t" 2>"$out/artifacts/$t/log.txt" ||
    { tail -40 "$out/artifacts/$t/log.txt" >&2; exit 1; }
  grep -E '^Done|stat::number_of_executed_units|stat::peak_rss_mb' "$out/artifacts/$t/log.txt" >&2
  echo "corpus: $(ls "$out/corpus/$t" | wc -l) inputs" >&2
done
