#!/bin/bash
# Session 16 call 24 (review mends: one programmatic-launch helper, one page-walk predicate, the
# forced order only in the extension, shared oracle constants): the B1 page-16 A/B once more, then
# the suites the mends touch.
C=$PWD/.carry_s16
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power' | tail -2
mkdir -p /tmp/b && tar xzf $C/v1_attention_bundle.tar.gz -C /tmp/b
R=/tmp/b/bundle/runfiles; PYTHONPATH=$R/_main:$R/_main/py:$R timeout 100 python3 $C/page_order_ab.py 1 --diag 2>&1 | grep "B1 " | grep "contig\|random" | tee $OUT/page_order_ab.log
CARRY=$C SUITES="gpu_h100:300 gpu_h100_bwd:420 gpu_h100_features:300 gpu_h100_kvcache:300" bash tools/bench/gpu_suites.sh
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power' | tail -2
