#!/bin/bash
# s12 call 2: d96 backward A/B (v0 committed; v4 diagnostic: both consumers' dQ slices 32 columns,
# wrong dQ, timing only; v1: 3 Q/dO stages), kernel-only in alternating processes; then ncu of v0's
# main kernel at d96 and d128 (bf16 S4096 full).
C=$PWD/.carry_s12; REPO=$PWD
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
OUT=$OUT CDIR=.carry_s12 VARIANTS="v0 v4 v1" REPS=2 AB_ARGS="--passes bwd --dims 96,128 --seqlens 1024,4096,16384 --nofeatures --rep 40" bash $C/ab.sh
R=/tmp/v0/bundle/runfiles
for d in 96 128; do
  T0=$SECONDS
  PYTHONPATH=$R/_main/py timeout 100 ncu --clock-control none --kernel-name-base demangled -c 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats --section SchedulerStats \
    -k regex:hopper::bwd_kernel python3 $REPO/kernels/hopper/profile_one.py --mode bwd --dtype bf16 --head_dim $d --seqlen 4096 > $OUT/ncu_d$d.txt 2>&1
  echo "ncu d$d rc=$? $((SECONDS-T0)) s"
  grep -E "Duration|Throughput|Pipe|Issue Slots|Stall|Warp Cycles|Eligible|SM Busy|No Eligible" $OUT/ncu_d$d.txt | head -24
done
