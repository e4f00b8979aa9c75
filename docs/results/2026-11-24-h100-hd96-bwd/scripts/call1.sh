#!/bin/bash
# s12 call 1: the sm90a backward at head dim 96 -- oracle subsets (bwd file at 72/80/96 + the
# mma.sync fallback, features at 72/80/96) with racecheck + memcheck of san_96.py alongside, then the
# eager backward grid at 96 and 128 against cuDNN and FA2 (every backend in one process).
C=$PWD/.carry_s12
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
mkdir -p /tmp/g /tmp/n && tar xzf $C/g_gpu_h100_bundle.tar.gz -C /tmp/g && tar xzf $C/new_attention_bundle.tar.gz -C /tmp/n
R=/tmp/g/bundle/runfiles
for tool in racecheck memcheck; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 300 /usr/local/cuda/bin/compute-sanitizer --tool $tool python3 $C/san_96.py > $OUT/san_$tool.log 2>&1 &
done
T0=$SECONDS
(cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout ${T_BWD:-240} python3 -m pytest -q -p no:cacheprovider \
  tests/gpu_attention_bwd_test.py -k "${K_BWD:-96 or 72 or 80 or fallback}" > $OUT/bwd_96.log 2>&1)
echo "bwd -k 96 rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' $OUT/bwd_96.log | tail -1)"
grep -E "^FAILED|Error" $OUT/bwd_96.log | head -12 | cut -c1-400
T0=$SECONDS
(cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout ${T_FEAT:-150} python3 -m pytest -q -p no:cacheprovider \
  tests/gpu_features_test.py -k "96 or 72 or 80" > $OUT/feat_96.log 2>&1)
echo "features -k 96 rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' $OUT/feat_96.log | tail -1)"
grep -E "^FAILED" $OUT/feat_96.log | head -8 | cut -c1-400
wait
for tool in racecheck memcheck; do echo "$tool: $(tail -2 $OUT/san_$tool.log | tr '\n' ' ')"; done
(cd /tmp/n && timeout 200 python3 bundle/run.py -- --mode=bwd --grid=paper --head_dims=96,128 --seqlens=1024,2048,4096,8192,16384 \
  --dtypes=bf16,fp16 --causal=both --backends=flashcore,cudnn,flash --warmup_ms=10 --rep_ms=25 --host_calls=0 \
  --noprofile_kernels --time_budget_s=180 --out_dir=/tmp/bwd) > $OUT/bench_bwd.log 2>&1
grep "^\[" $OUT/bench_bwd.log | cut -c1-170; cp /tmp/bwd/*.json $OUT/ 2>/dev/null
