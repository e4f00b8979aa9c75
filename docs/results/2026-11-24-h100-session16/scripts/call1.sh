#!/bin/bash
# Session 16 calls 1-3 (call 2: KeyWalk template, unrolled sort stages; call 3: the sort overlaps the first blocks; call 4: sorted entries fetched at the top of the step; call 6: the sort in registers and shuffles, decode blocks only; call 7: one sort grid per call, the decode grid its programmatic dependent; call 9: sorted entries in shared memory, 8 head blocks; call 11: the sort grid on idle SMs only, several lists a CTA): paged decode in key vs address order (A/B), then the kvcache suite.
C=$PWD/.carry_s16
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power' | tail -2
mkdir -p /tmp/v1 && tar xzf $C/v1_attention_bundle.tar.gz -C /tmp/v1
R=/tmp/v1/bundle/runfiles
echo "== prof_graph"; PYTHONPATH=$R/_main:$R/_main/py:$R timeout 100 python3 $C/prof_graph.py 2>&1 | grep "^B" | tee $OUT/prof_graph.log
echo "== page_order_ab"; PYTHONPATH=$R/_main:$R/_main/py:$R timeout 240 python3 $C/page_order_ab.py 3 2>&1 | tee $OUT/page_order_ab.log
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power' | tail -2
CARRY=$C SUITES="gpu_h100_kvcache:240" bash tools/bench/gpu_suites.sh
