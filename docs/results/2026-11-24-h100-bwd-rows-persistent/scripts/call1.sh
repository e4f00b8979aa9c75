#!/bin/bash
# s13 call 1: per-kernel breakdown of the eager backward (flashcore / cuDNN / FA2), bf16 paper rows.
C=$PWD/.carry_s13
mkdir -p /tmp/m && tar xzf $C/main_attention_bundle.tar.gz -C /tmp/m
R=/tmp/m/bundle/runfiles
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
PYTHONPATH=$R/_main:$R/_main/py:$R timeout 400 python3 $C/prof_bwd.py "$@" 2>&1 | tee $OUT/prof_bwd.log | grep -v "^   .*  0\.[0-9]%" 
