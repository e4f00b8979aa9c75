#!/bin/bash
# hd96 call 2, build C (128 x 176, 2 stages: the branch's tile): the forward GPU suite in full;
# d96 (and d80, predicated on 96) forward paper grid, kernel-only, C then B (128 x 192) with cuDNN
# in each process; the four sanitizers over the 8 head-dim-96 forward instantiations.
C=$(cd "$(dirname "$0")" && pwd)
cat $C/PROVENANCE
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
for b in gpu_h100 b_attention c_attention; do mkdir -p /tmp/$b && tar xzf $C/${b}_bundle.tar.gz -C /tmp/$b; done
T0=$SECONDS
(cd /tmp/gpu_h100 && timeout 75 python3 bundle/run.py --only gpu_h100 --timeout 70 --out /tmp/res_plain > /tmp/gpu_h100.txt 2>&1)
echo "gpu_h100 rc=$? $((SECONDS-T0)) s: $(grep -E '[0-9]+ (passed|failed)' -h /tmp/res_plain/tests/gpu_h100/test.log | tail -1)"
cp /tmp/res_plain/tests/gpu_h100/test.log $OUT/gpu_h100.log 2>/dev/null
grep -E "^FAILED|Error" /tmp/res_plain/tests/gpu_h100/test.log | head -12 | cut -c1-300
G="--grid=paper --mode=fwd --dtypes=bf16,fp16 --causal=both --seqlens=1024,2048,4096,8192,16384 --warmup_ms=10 --rep_ms=25 --host_calls=0 --noprofile_kernels --backends=flashcore,cudnn"
T0=$SECONDS
(cd /tmp/c_attention && timeout 65 python3 bundle/run.py -- $G --head_dims=96,80 --time_budget_s=55 --out_dir=/tmp/bench_c) > /tmp/bench_c.log 2>&1
echo "== bench C (128x176x2) rc=$? $((SECONDS-T0)) s"; grep "^\[" /tmp/bench_c.log | cut -c1-120
cp /tmp/bench_c/*.json $OUT/bench_c.json 2>/dev/null
T0=$SECONDS
(cd /tmp/b_attention && timeout 40 python3 bundle/run.py -- $G --head_dims=96 --time_budget_s=30 --out_dir=/tmp/bench_b2) > /tmp/bench_b2.log 2>&1
echo "== bench B (128x192x2) rc=$? $((SECONDS-T0)) s"; grep "^\[" /tmp/bench_b2.log | cut -c1-120
cp /tmp/bench_b2/*.json $OUT/bench_b2.json 2>/dev/null
T0=$SECONDS
R=/tmp/gpu_h100/bundle/runfiles
mkdir -p /tmp/san && PYTHONPATH=$R/_main/py:$R/_main/tests OUT=/tmp/san FLASHCORE_SANITIZER_TIMEOUT_S=${SAN_T:-100} \
  timeout 115 python3 $C/san_96.py $R > $OUT/san_96.txt 2>&1
echo "== sanitizers d96 rc=$? $((SECONDS-T0)) s"; grep -vE "^\s*$" $OUT/san_96.txt | grep -E "sweeping|covered all|FAILURE|did not finish" | cut -c1-400
for t in memcheck racecheck initcheck synccheck; do echo "$t: $(grep -c '^swept' /tmp/san/$t.log 2>/dev/null) swept; $(grep -E 'SUMMARY' /tmp/san/$t.log | tail -1)"; done
tar czf $OUT/san_logs.tgz -C /tmp/san . 2>/dev/null
