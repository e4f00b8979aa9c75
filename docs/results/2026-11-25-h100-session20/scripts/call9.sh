#!/usr/bin/env bash
# Session 20, call 9 (H100): the forward's producer issuing K one block ahead of V, one loop per
# cache kind (paged / contiguous) -- GPU suites, the paged-prefill rows, then a kernel-only A/B of
# the forward at every head dim against b74d653 (new). Carry .carry_s20.
set -u
CARRY=.carry_s20 SUITES="gpu_h100:330 gpu_h100_kvcache:330 gpu_h100_features:330 gpu_h100_edge:250 gpu_h100_hf:250" \
  bash tools/bench/gpu_suites.sh 2>&1 | tail -12
mkdir -p /tmp/pb && tar xzf .carry_s20/paged_attention_bundle.tar.gz -C /tmp/pb
R=/tmp/pb/bundle/runfiles
( export PYTHONPATH=$R/_main:$R/_main/py:$R
  timeout 120 python3 docs/results/2026-11-25-h100-session20/scripts/paged_locality.py 2>&1 | tail -14
  timeout 150 python3 tools/bench/decode.py --prefill_only --out_dir /tmp/decode 2>&1 | tail -13 )
CARRY=.carry_s20 VARIANTS="new paged" REPS=2 OUT=/tmp/ab \
  AB_ARGS="--dims 64,96,128,192,256 --passes fwd --seqlens 1024,4096,16384 --rep 20" bash tools/bench/ab_kernels.sh 2>&1 | tail -36
