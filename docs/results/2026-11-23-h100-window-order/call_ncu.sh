#!/bin/bash
# Session 7: ncu of the d128 window-4096 forward next to plain causal (S16384 B1 H16, bf16), the
# issue 13 row that misses (0.86 of plain causal): SM active-cycle spread (imbalance/tail) and stalls.
C=$(cd "$(dirname "$0")" && pwd)
W=/tmp/ncu; rm -rf $W; mkdir -p $W; tar xzf $C/gpu_h100_bundle.tar.gz -C $W
R=$W/bundle/runfiles
for w in -1 4096; do
  PYTHONPATH=$R/_main/py timeout 100 ncu --clock-control none -k regex:hopper::fwd_kernel -c 1 \
    --section SpeedOfLight --section WarpStateStats --section LaunchStats \
    --metrics sm__cycles_active.max,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_elapsed.max,gpu__time_duration.sum \
    python3 kernels/hopper/profile_one.py --head_dim 128 --seqlen 16384 --heads 16 --causal --window $w > $OUT/ncu_window$w.txt 2>&1
  echo "window $w rc=$?"
  grep -E "profiled|Duration|sm__cycles|gpu__time|Compute \(SM\) Throughput|Memory Throughput|Warp Cycles Per Issued|Grid Size|Stall" $OUT/ncu_window$w.txt | head -20
done
