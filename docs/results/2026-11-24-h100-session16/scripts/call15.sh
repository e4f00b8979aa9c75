#!/bin/bash
# Session 16 call 15: flash_attn_func's direct path. The seed shape's back-to-back per-call time
# (seed_host.py, every backend in one process, interleaved rounds), then the suites it touches.
C=$PWD/.carry_s16
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power' | tail -2
mkdir -p /tmp/b && tar xzf $C/v1_attention_bundle.tar.gz -C /tmp/b
R=/tmp/b/bundle/runfiles; PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 python3 $C/seed_host.py 2>&1 | tail -16 | tee $OUT/seed_host.log
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power' | tail -2
CARRY=$C SUITES="gpu_h100:300 gpu_h100_features:300 gpu_h100_hf:200" bash tools/bench/gpu_suites.sh
