#!/bin/bash
# s11 final call: suites not yet run on the final build (fuzz, gpu_h100), racecheck + memcheck of the
# wide backward (san_wide.py), and the fp16 wide backward against cuDNN / FA2 (eager, one process).
C=$PWD/.carry_ab
mkdir -p /tmp/s && tar xzf $C/g_gpu_h100_bundle.tar.gz -C /tmp/s
R=/tmp/s/bundle/runfiles
for tool in racecheck memcheck; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 /usr/local/cuda/bin/compute-sanitizer --tool $tool python3 $C/san_wide.py > $OUT/san_$tool.log 2>&1 &
done
wait
for tool in racecheck memcheck; do echo "$tool:"; tail -2 $OUT/san_$tool.log; done
for st in gpu_h100_fuzz:120 gpu_h100:200; do
  su=${st%%:*}; to=${st##*:}
  (cd /tmp/s && timeout $((to + 10)) python3 bundle/run.py --only $su --timeout $to --out /tmp/s/out_$su) > $OUT/$su.log 2>&1
  echo "== $su rc=$? $(grep -hoE '[0-9]+ passed[^=]*' /tmp/s/out_$su/tests/$su/test.log | tail -1)"
done
for su in gpu_h100_bwd gpu_h100_features gpu_h100_edge gpu_h100_hf; do :; done
mkdir -p /tmp/n && tar xzf $C/w6_attention_bundle.tar.gz -C /tmp/n
(cd /tmp/n && timeout 120 python3 bundle/run.py -- --mode=bwd --grid=paper --head_dims=192,256 --seqlens=1024,4096,16384 \
  --dtypes=fp16 --causal=both --backends=flashcore,cudnn,flash --warmup_ms=10 --rep_ms=25 --host_calls=0 \
  --noprofile_kernels --time_budget_s=100 --out_dir=/tmp/bwd) > $OUT/bench_bwd_fp16.log 2>&1
grep "^\[" $OUT/bench_bwd_fp16.log | cut -c1-170; cp /tmp/bwd/*.json $OUT/ 2>/dev/null
