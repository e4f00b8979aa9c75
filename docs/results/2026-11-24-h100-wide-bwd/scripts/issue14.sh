#!/bin/bash
# s11: issue 14's bars not re-measured since session 5 -- the seed shape (B1 H8 S512 D64) forward
# against cuDNN (kernel-only and back-to-back per call), and deterministic mode's cost at 64/128.
C=$PWD/.carry_ab
mkdir -p /tmp/n && tar xzf $C/w6_attention_bundle.tar.gz -C /tmp/n
(cd /tmp/n && timeout 120 python3 bundle/run.py -- --grid=seed --mode=fwd --backends=flashcore,cudnn,flash \
  --warmup_ms=10 --rep_ms=60 --host_calls=500 --host_budget_ms=60 --out_dir=/tmp/seed) > $OUT/seed_fwd.log 2>&1
echo "seed rc=$?"; grep -A8 "^dtype" $OUT/seed_fwd.log | cut -c1-260; cp /tmp/seed/*.json $OUT/seed_fwd.json 2>/dev/null
(cd /tmp/n && timeout 200 python3 bundle/run.py -- --mode=bwd --grid=paper --head_dims=64,128 --seqlens=1024,4096,16384 \
  --dtypes=bf16,fp16 --causal=both --backends=flashcore,flashcore_det --warmup_ms=10 --rep_ms=25 --host_calls=0 \
  --noprofile_kernels --time_budget_s=180 --out_dir=/tmp/det) > $OUT/det_bwd.log 2>&1
echo "det rc=$?"; grep "^\[" $OUT/det_bwd.log | cut -c1-150; cp /tmp/det/*.json $OUT/det_bwd.json 2>/dev/null
