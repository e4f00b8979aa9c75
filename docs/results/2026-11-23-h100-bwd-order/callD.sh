#!/bin/bash
# Session 8, call D (H100): the Hopper backward's launch order (BwdBlockOrder), branch bwdorder:
# tools/bench/bwd_order.py once per chunk width (FLASHCORE_BWD_CHUNK_GROUPS 1 = main's group-major
# order, 2, 4, 8, 0 = all groups in one chunk), two rounds of alternating processes; then
# //tests:gpu_h100_bwd with chunk widths 3 (a partial last chunk) and 0.
C=$(cd "$(dirname "$0")" && pwd)
echo "branch $(cat $C/COMMIT)"
W=/tmp/vd; rm -rf $W; mkdir -p $W/a $W/s
tar xzf $C/bo_attention_bundle.tar.gz -C $W/a; tar xzf $C/bo_gpu_h100_bundle.tar.gz -C $W/s
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
R=$W/a/bundle/runfiles
for r in 1 2; do
  for c in 1 2 4 8 0; do
    FLASHCORE_BWD_CHUNK_GROUPS=$c PYTHONPATH=$R/_main:$R/_main/py:$R timeout 60 python3 $C/bwd_order.py --label "r$r c$c" >> $OUT/bwd_order.log 2>&1
    echo "r$r c$c rc=$? $SECONDS s"
  done
done
cd $W/s
for c in 3 0; do
  T0=$SECONDS
  FLASHCORE_BWD_CHUNK_GROUPS=$c timeout 125 python3 bundle/run.py --only gpu_h100_bwd --timeout 120 --out $W/res_$c > $W/bwd_$c.txt 2>&1
  echo "gpu_h100_bwd chunk $c rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' -h $W/res_$c/tests/gpu_h100_bwd/test.log 2>/dev/null | tail -1)"
  grep -E "^FAILED" $W/res_$c/tests/gpu_h100_bwd/test.log 2>/dev/null | head -5
done
