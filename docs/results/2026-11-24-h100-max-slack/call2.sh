#!/usr/bin/env bash
# A/B/...: bundles named by $VARIANTS (prefix of <v>_attention_bundle.tar.gz in .carry_s10), alternating
# processes, then GPU suites ($SUITES) on the bundle $SUITE_V.
C=$PWD/${CDIR:-.carry_s10}
for v in $VARIANTS; do mkdir -p /tmp/$v; tar xzf $C/${v}_attention_bundle.tar.gz -C /tmp/$v; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
for rep in $(seq ${REPS:-2}); do
  for v in $VARIANTS; do
    R=/tmp/$v/bundle/runfiles
    PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 python3 $C/ab.py --label $v$rep ${AB_ARGS:-} 2>&1 | tee -a $OUT/ab.log | tail -1
  done
done
if [ -n "$SUITES" ]; then
  mkdir -p /tmp/s; tar xzf $C/${SUITE_V}_gpu_h100_bundle.tar.gz -C /tmp/s
  for su in $SUITES; do
    (cd /tmp/s && timeout 250 python3 bundle/run.py --only $su --timeout 240 --out /tmp/s/out_$su) > $OUT/$su.log 2>&1
    tail -3 $OUT/$su.log
  done
fi
