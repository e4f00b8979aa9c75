#!/bin/bash
# s12 call 9 (final build c27609c): the forward suite gpu_h100, then the eager backward grid with
# every backend in one process (flashcore, cuDNN, FA2): paper grid d96/192/256 and d64/128, bf16 and fp16.
C=$PWD/.carry_s12
OUT=$OUT SUITES="gpu_h100:300" bash $C/suites.sh | tail -3
mkdir -p /tmp/n && tar xzf $C/new_attention_bundle.tar.gz -C /tmp/n
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
for dims in 96,192,256 64,128; do
  (cd /tmp/n && timeout 230 python3 bundle/run.py -- --mode=bwd --grid=paper --head_dims=$dims --seqlens=1024,2048,4096,8192,16384 \
    --dtypes=bf16,fp16 --causal=both --backends=flashcore,cudnn,flash --warmup_ms=10 --rep_ms=25 --host_calls=0 \
    --noprofile_kernels --time_budget_s=210 --out_dir=/tmp/bwd_$dims) > $OUT/bench_bwd_$dims.log 2>&1
  grep "^\[" $OUT/bench_bwd_$dims.log | cut -c1-150; cp /tmp/bwd_$dims/attention_bwd.json $OUT/attention_bwd_${dims/,/_}.json 2>/dev/null
done
