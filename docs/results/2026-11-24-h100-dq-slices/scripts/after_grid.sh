#!/bin/bash
# s14: after the FA4 grid, the carried attention bundle (v4) through ab.py: d96 / d128 backward rows, 3 processes.
R=/tmp/fa4w/bundle/runfiles
for rep in 1 2 3; do
  PYTHONPATH=$R/_main:$R/_main/py:$R timeout 100 python3 .carry_fa4/ab.py --label v4$rep --passes bwd --nofeatures --dims 96,128 --rep 25 >> $OUT/ab_v4.log 2>&1
done
grep TFLOP $OUT/ab_v4.log | sort -k2,6 | awk '{print}' | tail -40
