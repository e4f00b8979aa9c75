#!/usr/bin/env bash
# Session 21, call 11 (H100): kDecodeSortHeadBlocks 12 (narrow = HEAD) vs 24 (hb24): scripts/decode_sort.py
# per build, alternating twice. Carry .carry_s21.
set -u
for rep in 1 2; do
  for v in narrow hb24; do
    mkdir -p /tmp/ds_$v && tar xzf .carry_s21/${v}_attention_bundle.tar.gz -C /tmp/ds_$v
    R=/tmp/ds_$v/bundle/runfiles
    echo "== $v round $rep"
    PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 python3 docs/results/2026-11-25-h100-session21/scripts/decode_sort.py 2>&1 | tail -12
  done
done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
