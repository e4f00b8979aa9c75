#!/bin/bash
# Session 15 call 3 (build v3: d96 two forward tiles, d64 long rows from 2048 full): decode page
# order (with a per-split sorted table), sanitizers on the d96 tiles, the GPU suites.
C=$PWD/.carry_s15
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons' | grep -i 'SW Thermal\|SW Power' | tail -2
mkdir -p /tmp/v3 && tar xzf $C/v3_attention_bundle.tar.gz -C /tmp/v3
R=/tmp/v3/bundle/runfiles
echo "== decode_pages"; PYTHONPATH=$R/_main:$R/_main/py:$R timeout 150 python3 $C/decode_pages.py 2>&1 | tee $OUT/decode_pages.log
for tool in memcheck racecheck; do
  echo "== $tool"; PYTHONPATH=$R/_main:$R/_main/py:$R timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool $tool --print-limit 5 python3 $C/san_fwd96.py > $OUT/san_fwd96_$tool.log 2>&1; tail -3 $OUT/san_fwd96_$tool.log
done
SUITES="gpu_h100:240 gpu_h100_features:240 gpu_h100_edge:120 gpu_h100_kvcache:200 gpu_h100_fuzz:240" bash $C/suites.sh
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons' | grep -i 'SW Thermal\|SW Power' | tail -2
