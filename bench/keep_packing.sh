#!/usr/bin/env bash
# Runs a command while packing the folder it writes into one archive every few seconds, and once
# more when it ends: a GPU-machine call brings back at most 8 files from $OUT, and nothing that a
# command killed at the call's limit had not packed yet. The archive is replaced by a rename, so what comes back is always whole.
#
# Usage (repository root): bench/keep_packing.sh DIR ARCHIVE [SECONDS=15] -- COMMAND...
#   e.g. bench/keep_packing.sh /tmp/run "$OUT/run.tgz" -- bench/compare_h200.sh /tmp/run/rec
set -u
DIR=${1:?usage: bench/keep_packing.sh DIR ARCHIVE [SECONDS] -- COMMAND...}
ARCHIVE=${2:?}
shift 2
EVERY=15
if [[ ${1:-} != -- ]]; then EVERY=$1; shift; fi
[[ ${1:-} == -- ]] && shift
mkdir -p "$DIR"
pack() { tar czf "$ARCHIVE.part" -C "$(dirname "$DIR")" "$(basename "$DIR")" 2> /dev/null && mv -f "$ARCHIVE.part" "$ARCHIVE"; }
( while sleep "$EVERY"; do pack; done ) &
packer=$!
"$@"
rc=$?
kill "$packer" 2> /dev/null
wait "$packer" 2> /dev/null
pack
exit $rc
