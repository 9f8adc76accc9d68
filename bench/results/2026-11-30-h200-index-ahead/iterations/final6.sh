#!/usr/bin/env bash
# The run of record: envfix, pip and uv side by side on the real stack (index mode), then the -vv
# step times of envfix on the same index. Everything to $OUT; nothing left running.
set -u
W=/tmp/envfix-compare
REPACK=.h200x/repack-index.py MODE=index REPS=3 PIP_REPS=1 BUDGET=${BUDGET:-200} KEEP=1 W=$W \
  timeout ${CMP_TIMEOUT:-430} bench/compare_h200.sh $OUT/cmp > $OUT/cmp.log 2>&1
echo "compare rc=$?" >> $OUT/cmp.log
ENVFIX=.h200/bin/envfix timeout 90 bench/install_steps.sh $W/idx $OUT/steps.log
rm -rf $W
