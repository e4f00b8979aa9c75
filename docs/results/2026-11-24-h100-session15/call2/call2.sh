#!/bin/bash
# Session 15 call 2: forward tile A/B (v0 main, v1 d96 two tiles, v2 = v1 + d64 long rows from 2048),
# kernel-only, alternating processes; then sanitizers on the d96 forward tiles.
C=$PWD/.carry_s15
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons' | grep -i 'Counter\|SW Thermal\|SW Power' | head -4
for dt in bf16 fp16; do
  CDIR=.carry_s15 VARIANTS="v0 v1 v2" REPS=$([ $dt = bf16 ] && echo 2 || echo 1) \
    AB_ARGS="--dtype $dt --dims 64,96 --seqlens 1024,2048,4096,16384 --passes fwd --nofeatures --rep 50" \
    OUT=$OUT bash $C/ab.sh > $OUT/ab_$dt.txt 2>&1
  cat $OUT/ab_$dt.txt; mv $OUT/ab.log $OUT/ab_$dt.log
done
nvidia-smi -q -d PERFORMANCE | grep -A12 'Clocks Event Reasons' | grep -i 'SW Thermal\|SW Power' | head -4
R=/tmp/v1/bundle/runfiles
for tool in memcheck racecheck; do
  echo "== $tool"; PYTHONPATH=$R/_main:$R/_main/py:$R timeout 150 compute-sanitizer --tool $tool --print-limit 5 python3 $C/san_fwd96.py 2>&1 | tail -4
done
