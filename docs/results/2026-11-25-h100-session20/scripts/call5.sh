#!/usr/bin/env bash
# Session 20, call 5 (H100): the paged forward with the warp producer -- the GPU suites, then the
# chunked-prefill / paged-varlen rows, then a kernel-only A/B of the plain forward against the
# commit before it (new = b74d653, paged = the working tree). Carry .carry_s20.
set -u
CARRY=.carry_s20 SUITES="gpu_h100:330 gpu_h100_kvcache:330 gpu_h100_features:330 gpu_h100_edge:250" \
  bash tools/bench/gpu_suites.sh 2>&1 | tail -12
mkdir -p /tmp/pb && tar xzf .carry_s20/paged_attention_bundle.tar.gz -C /tmp/pb
R=/tmp/pb/bundle/runfiles
PYTHONPATH=$R/_main:$R/_main/py:$R timeout 150 python3 tools/bench/decode.py --prefill_only --out_dir /tmp/decode 2>&1 | tail -14
CARRY=.carry_s20 VARIANTS="new paged" REPS=2 OUT=/tmp/ab \
  AB_ARGS="--dims 64,128 --passes fwd --seqlens 1024,4096,16384 --rep 25" bash tools/bench/ab_kernels.sh 2>&1 | tail -22
