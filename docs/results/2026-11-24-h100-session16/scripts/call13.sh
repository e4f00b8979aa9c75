#!/bin/bash
# Session 16 call 13 (the final decode build): the decode backend table (torch flash, cuDNN,
# flashcore contiguous / page 16 / page 256, every backend in one process), then the GPU suites.
C=$PWD/.carry_s16
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power' | tail -2
mkdir -p /tmp/b && tar xzf $C/v1_attention_bundle.tar.gz -C /tmp/b
(cd /tmp/b && timeout 120 python3 bundle/run.py -- --mode=decode --no_prefill --sweep_splits "" --out_dir /tmp/dec) 2>&1 | grep -v "^ *$" | tail -12 | tee $OUT/decode_table.log
cp /tmp/dec/*.json $OUT/ 2>/dev/null
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power' | tail -2
CARRY=$C SUITES="gpu_h100_kvcache:240 gpu_h100_hf:200 gpu_h100:300 gpu_h100_edge:150" bash tools/bench/gpu_suites.sh
