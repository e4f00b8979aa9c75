#!/bin/bash
# s11 call 1: the head-dim-split wgmma backward at 256 -- oracle subsets (bwd file at 136/192/200/256,
# features at the 192/256 pairs), then kernel-only A/B against the mma.sync kernel it replaces
# (FLASHCORE_BWD_SM90_MMA_SYNC=1) in alternating processes.
C=$PWD/.carry_s11
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
mkdir -p /tmp/g /tmp/n && tar xzf $C/g_gpu_h100_bundle.tar.gz -C /tmp/g && tar xzf $C/new_attention_bundle.tar.gz -C /tmp/n
R=/tmp/g/bundle/runfiles
T0=$SECONDS
(cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout ${T_BWD:-200} python3 -m pytest -q -x -p no:cacheprovider \
  tests/gpu_attention_bwd_test.py -k "${K_BWD:-136 or 192 or 200 or 256}" > $OUT/bwd_wide.log 2>&1)
echo "bwd -k wide rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' $OUT/bwd_wide.log | tail -1)"
grep -E "^FAILED|Error|error" $OUT/bwd_wide.log | head -12 | cut -c1-400
T0=$SECONDS
(cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout ${T_FEAT:-120} python3 -m pytest -q -p no:cacheprovider \
  tests/gpu_features_test.py -k "192 or 256" > $OUT/feat_wide.log 2>&1)
echo "features -k 192/256 rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' $OUT/feat_wide.log | tail -1)"
grep -E "^FAILED" $OUT/feat_wide.log | head -8 | cut -c1-400
RN=/tmp/n/bundle/runfiles
for rep in 1 2; do
  for v in new old; do
    env=""; [ $v = old ] && env="FLASHCORE_BWD_SM90_MMA_SYNC=1"
    env $env PYTHONPATH=$RN/_main:$RN/_main/py:$RN timeout 150 python3 $C/ab.py --label $v$rep --passes bwd --dims ${DIMS:-256,192} --nofeatures ${AB_ARGS:-} 2>&1 | tee -a $OUT/ab.log | grep -v "^$" | tail -13
  done
done
