#!/usr/bin/env bash
# Session 21, call 9 (H100): ncu of the split decode kernel, B1 H32 k65536, contiguous vs pages of
# 16 and 256 in order (scripts/prof_decode.py): duration, DRAM throughput, instructions, warp
# states, per-SASS-instruction stall samples. Carry .carry_s21 (narrow_attention_bundle = HEAD's kernels).
set -u
mkdir -p /tmp/pd && tar xzf .carry_s21/narrow_attention_bundle.tar.gz -C /tmp/pd
R=/tmp/pd/bundle/runfiles
export PYTHONPATH=$R/_main:$R/_main/py:$R
S=docs/results/2026-11-25-h100-session21/scripts
for c in contig 16 256; do
  timeout 150 ncu --clock-control none --profile-from-start off -k regex:decode_kernel -c 1 --section SpeedOfLight \
    --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats --section InstructionStats \
    --section SourceCounters --import-source no -o /tmp/d_$c -f python3 $S/prof_decode.py $c > $OUT/ncu_$c.log 2>&1
  echo "ncu $c rc=$?"
  ncu -i /tmp/d_$c.ncu-rep --page details > $OUT/details_$c.txt 2>&1
  ncu -i /tmp/d_$c.ncu-rep --page source --print-source sass --csv > $OUT/sass_$c.csv 2>/dev/null
  grep -E "Duration|DRAM Throughput|Executed Instructions  |Issue Slots Busy|Warp Cycles Per Issued|No Eligible|Active Warps Per" $OUT/details_$c.txt | head -10
done
