#!/usr/bin/env bash
# Session 21, call 14 (H100): the page sort in registers (rsort: one entry per thread, shuffles below a warp, two shared buffers above) -- the KV-cache suite (both
# page orders, memcheck / racecheck of the decode path) on it, then scripts/decode_sort.py on HEAD
# (narrow) and rsort alternating twice, then scripts/decode_locality.py (issue 16's cells) on rsort.
# Carry .carry_s21.
set -u
CARRY=.carry_s21 SUITES="gpu_h100_kvcache:420" bash tools/bench/gpu_suites.sh 2>&1 | tail -6
for rep in 1 2; do
  for v in narrow rsort; do
    mkdir -p /tmp/ds_$v && tar xzf .carry_s21/${v}_attention_bundle.tar.gz -C /tmp/ds_$v
    R=/tmp/ds_$v/bundle/runfiles
    echo "== $v round $rep"
    PYTHONPATH=$R/_main:$R/_main/py:$R timeout 200 python3 $PWD/docs/results/2026-11-25-h100-session21/scripts/decode_sort.py 2>&1 | tail -12
  done
done
R=/tmp/ds_rsort/bundle/runfiles
echo "== rsort: decode cells"
PYTHONPATH=$R/_main:$R/_main/py:$R timeout 300 python3 docs/results/2026-11-25-h100-session21/scripts/decode_locality.py 2>&1 | tail -36
timeout 120 env PYTHONPATH=$R/_main:$R/_main/py:$R ncu --clock-control none --profile-from-start off -k regex:page_sort -c 1 \
  --section SpeedOfLight python3 docs/results/2026-11-25-h100-session21/scripts/prof_decode.py 16 2>&1 | grep -E "Duration"
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'thermal\|power'
