#!/usr/bin/env bash
# Session 21, call 10 (H100): scripts/decode_sort.py (the page sort's cost and gain at B1), then ncu of
# the sort grid of B1 H32 page 16. Carry .carry_s21 (narrow_attention_bundle = HEAD's kernels).
set -u
mkdir -p /tmp/pd && tar xzf .carry_s21/narrow_attention_bundle.tar.gz -C /tmp/pd
R=/tmp/pd/bundle/runfiles
export PYTHONPATH=$R/_main:$R/_main/py:$R
S=docs/results/2026-11-25-h100-session21/scripts
timeout 300 python3 $S/decode_sort.py 2>&1 | tail -16
timeout 120 ncu --clock-control none --profile-from-start off -k regex:page_sort -c 1 --section SpeedOfLight \
  --section LaunchStats python3 $S/prof_decode.py 16 > $OUT/ncu_sort.log 2>&1
grep -E "Duration|Grid Size|Block Size|Registers|Elapsed" $OUT/ncu_sort.log | head -8
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
