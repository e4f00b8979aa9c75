#!/bin/bash
# s13 call 10 (final build): every H100 suite, then the eager vs CUDA-graph varlen forward / backward
# rows of the features grid (flashcore only) on the rows build (checks read cu_seqlens every call)
# and the final one (once per set of tensors).
C=$PWD/.carry_s13
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
OUT=$OUT SUITES="gpu_h100_bwd:280 gpu_h100_features:280 gpu_h100_edge:200 gpu_h100_hf:250" bash $C/suites.sh
OUT=$OUT SUITES="gpu_h100:280 gpu_h100_kvcache:280 gpu_h100_fuzz:250" bash $C/suites.sh
for b in rows final; do
  mkdir -p /tmp/b_$b && tar xzf $C/${b}_attention_bundle.tar.gz -C /tmp/b_$b
  for mode in fwd bwd; do
    (cd /tmp/b_$b && timeout 120 python3 bundle/run.py -- --mode=$mode --grid=features --head_dims=64,128 --dtypes=bf16 --causal=both \
      --backends=flashcore --warmup_ms=10 --rep_ms=25 --host_calls=0 --noprofile_kernels --time_budget_s=100 --out_dir=/tmp/v_${b}_$mode) > $OUT/varlen_${b}_$mode.log 2>&1
    echo "== $b $mode"; grep "^\[" $OUT/varlen_${b}_$mode.log | cut -c1-120
  done
done
