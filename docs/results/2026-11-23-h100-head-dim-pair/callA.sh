#!/bin/bash
# Session 8, call A (H100): stage FA4's first half in /root/keep (call B installs it), then the GPU
# suites the head_dim_v change touches, on branch headdim-v's //tests:gpu_h100_bundle.
C=$(cd "$(dirname "$0")" && pwd)
# (run from the repository root, carrying .carry_fa4/fa4/a)
mkdir -p /root/keep && cp .carry_fa4/fa4/a/* /root/keep/ && ls -la /root/keep | tail -1
echo "branch $(cat $C/COMMIT)"
W=/tmp/va; rm -rf $W; mkdir -p $W; tar xzf $C/vdim_gpu_h100_bundle.tar.gz -C $W
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
cd $W
for s in features plain bwd edge hf; do
  t=gpu_h100_$s; [ $s = plain ] && t=gpu_h100
  lim=120; [ $s = features ] && lim=290
  T0=$SECONDS
  timeout $((lim+5)) python3 bundle/run.py --only $t --timeout $lim --out $W/res_$s > $W/$t.txt 2>&1
  echo "$t rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' -h $W/res_$s/tests/$t/test.log 2>/dev/null | tail -1)"
  grep -E "^FAILED|^E  .*Error" $W/res_$s/tests/$t/test.log 2>/dev/null | head -8
done
cp $W/res_features/tests/gpu_h100_features/test.log $OUT/gpu_h100_features.log 2>/dev/null
tar czf $OUT/suite_logs.tgz -C $W $(cd $W && ls -d res_*/tests/*/test.log)
