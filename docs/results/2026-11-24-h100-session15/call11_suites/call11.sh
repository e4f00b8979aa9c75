#!/bin/bash
# Session 15 call 11 (v5: few-tiles tile + long rows only with a wave of its tiles + the forced-tile
# test hook): small-grid A/B v4 vs v5, suites (forward, features, edge, bwd, kvcache, hf), sanitizers.
C=$PWD/.carry_s15b
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power'
for v in v4 v5; do mkdir -p /tmp/$v && tar xzf $C/${v}_attention_bundle.tar.gz -C /tmp/$v; done
for rep in 1 2; do for v in v4 v5; do
  R=/tmp/$v/bundle/runfiles
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 120 python3 $C/small_grid.py $v 2>&1 | grep -v Warn >> $OUT/small_grid.log
done; done
grep -E 'S2048|S1024 d128' $OUT/small_grid.log | sort -k2 | head -20
CARRY=.carry_s15b SUITES="gpu_h100:240 gpu_h100_features:300 gpu_h100_edge:120 gpu_h100_bwd:300 gpu_h100_kvcache:200 gpu_h100_hf:200" OUT=$OUT bash tools/bench/gpu_suites.sh
R=/tmp/v5/bundle/runfiles
for tool in memcheck racecheck; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 120 /usr/local/cuda/bin/compute-sanitizer --tool $tool --print-limit 5 python3 $C/san_few.py > $OUT/san_few_$tool.log 2>&1; echo "== $tool"; tail -2 $OUT/san_few_$tool.log
done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons Counters' | grep -i 'SW Thermal\|SW Power'
