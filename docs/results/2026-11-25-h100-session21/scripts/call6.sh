#!/usr/bin/env bash
# Session 21, call 6 (H100): scripts/wide_tiles.py on the build with 192 / 256 few-tiles tiles
# (wide_attention_bundle). Carry .carry_s21.
set -u
mkdir -p /tmp/wt && tar xzf .carry_s21/wide_attention_bundle.tar.gz -C /tmp/wt
R=/tmp/wt/bundle/runfiles
PYTHONPATH=$R/_main:$R/_main/py:$R timeout 400 python3 docs/results/2026-11-25-h100-session21/scripts/wide_tiles.py 2>&1 | tail -14
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
