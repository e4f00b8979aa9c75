#!/bin/bash
# Session 16 calls 17 and 19: the append in one kernel (append_kernel.cuh) and fewer check ops (call 19: the checks from one kernel, check_kernel.cuh; call 22: their facts reduced in Python): the eager
# decode step's per-call time, then the suites (kvcache covers the cache after every call
# bitwise, sentinels, graph replay, sanitizers; hf the greedy decode; gpu_h100 the direct-path
# fixture).
C=$PWD/.carry_s16
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power' | tail -2
mkdir -p /tmp/b && tar xzf $C/v1_attention_bundle.tar.gz -C /tmp/b
R=/tmp/b/bundle/runfiles; PYTHONPATH=$R/_main:$R/_main/py:$R timeout 100 python3 $C/kv_host.py 2>&1 | tail -3 | tee $OUT/kv_host_after.log
CARRY=$C SUITES="gpu_h100_kvcache:300" bash tools/bench/gpu_suites.sh
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power' | tail -2
