#!/usr/bin/env bash
# The device batches of docs/performance.md, "Unpacking while downloading": the real stack's index
# (bench/real_stack.py), optionally envfix's -vv steps (STEPS=1: bench/install_steps.sh), then cold
# installs with the page cache dropped, one per value of PARS (parallel downloads), each with its
# -vv timeline of the unpacking batches; with RUNNERS="4 8", each PARS value once per runner count
# (ENVFIX_UNPACK_RUNNERS). DISK=1 first times the disk with dd. Output under $OUT (stack.log,
# steps.log, cold.log, disk.log); nothing is left running.
#
# Usage on the GPU machine (repository root, .h200 carried): OUT=… [PARS="4 4 4"] [RUNNERS="4 8"]
#   [STEPS=1] [REPACK=…] bench/cold_h200.sh
set -u
REPACK=${REPACK:-.h200x/repack-index.py}
[[ -f $REPACK ]] || REPACK=../shared/tools/repack-index.py
W=/tmp/envfix-compare; rm -rf $W; mkdir -p $W
[[ -n ${DISK:-} ]] && { df -T /tmp; dd if=/dev/urandom of=/tmp/ddx bs=1M count=1024 2>&1 | tail -1; dd if=/tmp/ddx of=/tmp/ddy bs=1M conv=fsync 2>&1 | tail -1; dd if=/tmp/ddx of=/tmp/ddz bs=1M 2>&1 | tail -1; rm -f /tmp/ddx /tmp/ddy /tmp/ddz; cat /proc/sys/vm/dirty_ratio /proc/sys/vm/dirty_background_ratio; } > $OUT/disk.log 2>&1
t0=$EPOCHREALTIME
python3 bench/real_stack.py $W/idx --python /opt/torch/.venv/bin/python3 --repack "$REPACK" > $OUT/stack.log 2>&1
echo "index built in $(python3 -c "print(round($EPOCHREALTIME - $t0))") s" >> $OUT/stack.log
[[ -n ${STEPS:-} ]] && ENVFIX=.h200/bin/envfix timeout 200 bench/install_steps.sh $W/idx $OUT/steps.log
E=$PWD/.h200/bin/envfix
python3 - > /dev/null 2>&1 <<'PY' &
import sys, time; sys.path.insert(0, 'bench')
import compare
h, u = compare.serve('/tmp/envfix-compare/idx'); open('/tmp/envfix-compare/url', 'w').write(u); time.sleep(600)
PY
SERVER=$!; trap 'kill $SERVER 2>/dev/null; rm -rf $W' EXIT
sleep 1; URL=$(cat $W/url)
R1="torch==2.11.0+cu130 torchaudio==2.11.0+cu130 torchvision==0.26.0+cu130"
{
for par in ${PARS:-1 2 4 1 2 4}; do for runners in ${RUNNERS:-default}; do
  rm -rf $W/c $W/d $W/v $W/cfg; mkdir -p $W/cfg; printf "version: 1\nnetwork:\n  parallel-downloads: %s\n" $par > $W/cfg/config.yaml
  /usr/bin/python3.12 -m venv --without-pip $W/v; sync; echo 3 > /proc/sys/vm/drop_caches
  [[ $runners == default ]] && unset ENVFIX_UNPACK_RUNNERS || export ENVFIX_UNPACK_RUNNERS=$runners
  ENVFIX_CONFIG_DIR=$W/cfg ENVFIX_CACHE_DIR=$W/c ENVFIX_DATA_DIR=$W/d /usr/bin/time -f "cold parallel=$par runners=$runners: %e s wall, %U user, %S sys, max RSS %M KiB" \
    $E install -vv --no-verify --env $W/v --torch-from index --index-url $URL -y $R1 2>&1 | grep -E "ms$|done in|wall|error|downloading|began"
done; done
} > $OUT/cold.log 2>&1
kill $SERVER 2>/dev/null
