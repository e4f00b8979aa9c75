#!/usr/bin/env bash
# Session 21, call 5 (H100): decode rows with pages in order and shuffled (scripts/decode_locality.py)
# on HEAD's kernels (narrow_attention_bundle). Carry .carry_s21.
set -u
mkdir -p /tmp/pl && tar xzf .carry_s21/narrow_attention_bundle.tar.gz -C /tmp/pl
R=/tmp/pl/bundle/runfiles
PYTHONPATH=$R/_main:$R/_main/py:$R timeout 400 python3 docs/results/2026-11-25-h100-session21/scripts/decode_locality.py 2>&1 | tail -40
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
