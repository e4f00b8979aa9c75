#!/bin/bash
# hd96 call 1: the forward GPU suite (gpu_h100, in full: the tile-layout change touches every
# Hopper forward) and the backward oracle at 80/88/96 (forward on the 96 kernel, backward on 128);
# then the d96 forward paper grid, kernel-only, for tile A (128 x 128, 3 stages: the commit) with
# d128 beside it, and tile B (128 x 192, 2 stages) at d96, each with cuDNN in the same process.
C=$(cd "$(dirname "$0")" && pwd)
cat $C/PROVENANCE
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
for b in gpu_h100 a_attention b_attention; do mkdir -p /tmp/$b && tar xzf $C/${b}_bundle.tar.gz -C /tmp/$b; done
T0=$SECONDS
(cd /tmp/gpu_h100 && timeout 140 python3 bundle/run.py --only gpu_h100 --timeout 135 --out /tmp/res_plain > $OUT/gpu_h100.txt 2>&1)
echo "gpu_h100 rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' -h /tmp/res_plain/tests/gpu_h100/test.log | tail -1)"
cp /tmp/res_plain/tests/gpu_h100/test.log $OUT/gpu_h100.log 2>/dev/null
grep -E "^FAILED|Error" /tmp/res_plain/tests/gpu_h100/test.log | head -12 | cut -c1-300
R=/tmp/gpu_h100/bundle/runfiles
T0=$SECONDS
(cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests timeout 50 python3 -m pytest -q -p no:cacheprovider \
  tests/gpu_attention_bwd_test.py -k "80 or 88 or 96" > $OUT/bwd_96.log 2>&1)
echo "bwd -k 80/88/96 rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' $OUT/bwd_96.log | tail -1)"
grep -E "^FAILED" $OUT/bwd_96.log | head -5 | cut -c1-300
G="--grid=paper --mode=fwd --dtypes=bf16,fp16 --causal=both --seqlens=1024,2048,4096,8192,16384 --warmup_ms=10 --rep_ms=25 --host_calls=0 --noprofile_kernels"
T0=$SECONDS
(cd /tmp/a_attention && timeout 115 python3 bundle/run.py -- $G --head_dims=96,128 --backends=flashcore,cudnn,flash \
  --time_budget_s=100 --out_dir=/tmp/bench_a) > $OUT/bench_a.log 2>&1
echo "== bench A (128x128x3) rc=$? $((SECONDS-T0)) s"; grep "^\[" $OUT/bench_a.log | cut -c1-160
cp /tmp/bench_a/*.json $OUT/bench_a.json 2>/dev/null
T0=$SECONDS
(cd /tmp/b_attention && timeout 55 python3 bundle/run.py -- $G --head_dims=96 --backends=flashcore,cudnn \
  --time_budget_s=42 --out_dir=/tmp/bench_b) > $OUT/bench_b.log 2>&1
echo "== bench B (128x192x2) rc=$? $((SECONDS-T0)) s"; grep "^\[" $OUT/bench_b.log | cut -c1-160
cp /tmp/bench_b/*.json $OUT/bench_b.json 2>/dev/null
