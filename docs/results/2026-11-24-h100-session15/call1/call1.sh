#!/bin/bash
# Session 15 call 1: throttle counters; the packed-backward zero-fill A/B; the decode page-order
# diagnosis; the features and Hugging Face suites on the new build.
C=$PWD/.carry_s15
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons' | grep -i 'thermal\|power\|Counter' | head -8
mkdir -p /tmp/n && tar xzf $C/new_attention_bundle.tar.gz -C /tmp/n
R=/tmp/n/bundle/runfiles
export PYTHONPATH=$R/_main:$R/_main/py:$R
echo "== varlen_ab"; timeout 200 python3 $C/varlen_ab.py 2>&1 | tee $OUT/varlen_ab.log | grep -v Warn
echo "== decode_pages"; timeout 150 python3 $C/decode_pages.py 2>&1 | tee $OUT/decode_pages.log
unset PYTHONPATH
SUITES="gpu_h100_features:240 gpu_h100_hf:200" bash $C/suites.sh
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons' | grep -i 'thermal\|power' | head -6
