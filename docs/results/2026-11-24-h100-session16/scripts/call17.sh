#!/bin/bash
# Session 16 calls 17 and 19: the append in one kernel (append_kernel.cuh) and fewer check ops (call 19: the checks from one kernel, check_kernel.cuh; call 22: their facts reduced in Python): the eager
# decode step's per-call time, then the suites (kvcache covers the cache after every call
# bitwise, sentinels, graph replay, sanitizers; hf the greedy decode; gpu_h100 the direct-path
# fixture).
C=$PWD/.carry_s16
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power' | tail -2
mkdir -p /tmp/b && tar xzf $C/v1_attention_bundle.tar.gz -C /tmp/b
# (call 23: suites only, after the style reflow)
CARRY=$C SUITES="gpu_h100_kvcache:300 gpu_h100:300" bash tools/bench/gpu_suites.sh
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power' | tail -2
