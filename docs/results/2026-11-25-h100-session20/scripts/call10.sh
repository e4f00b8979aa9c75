#!/usr/bin/env bash
# Session 20, call 10 (H100): the final paged build -- GPU suites, then scripts/paged_locality.py
# and tools/bench/decode.py --prefill_only. Carry .carry_s20 (gpu_h100_bundle, paged_attention_bundle).
set -u
CARRY=.carry_s20 SUITES="gpu_h100:330 gpu_h100_kvcache:330 gpu_h100_features:330 gpu_h100_edge:250" \
  bash tools/bench/gpu_suites.sh 2>&1 | tail -8
mkdir -p /tmp/pb && tar xzf .carry_s20/paged_attention_bundle.tar.gz -C /tmp/pb
R=/tmp/pb/bundle/runfiles
export PYTHONPATH=$R/_main:$R/_main/py:$R
timeout 120 python3 docs/results/2026-11-25-h100-session20/scripts/paged_locality.py 2>&1 | tail -14
timeout 150 python3 tools/bench/decode.py --prefill_only --out_dir /tmp/decode 2>&1 | tail -13
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
