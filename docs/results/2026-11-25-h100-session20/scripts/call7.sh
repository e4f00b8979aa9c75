#!/usr/bin/env bash
# Session 20, call 7 (H100): ncu of the chunked-prefill forward over a contiguous cache and over
# pages of 1024 / 16 (in order): duration, memory and warp-state sections, and per-SASS-instruction
# stall samples (SourceCounters) for the producer's paged loop.
set -u
mkdir -p /tmp/pb && tar xzf .carry_s20/paged_attention_bundle.tar.gz -C /tmp/pb
R=/tmp/pb/bundle/runfiles
export PYTHONPATH=$R/_main:$R/_main/py:$R
S=docs/results/2026-11-25-h100-session20/scripts
for c in contig 1024 16; do
  timeout 150 ncu --clock-control none --profile-from-start off -k regex:fwd_kernel -c 1 --section SpeedOfLight \
    --section WarpStateStats --section MemoryWorkloadAnalysis --section SourceCounters --import-source no \
    -o /tmp/p_$c -f python3 $S/prof_paged.py $c > $OUT/ncu_$c.log 2>&1
  echo "ncu $c rc=$?"
  ncu -i /tmp/p_$c.ncu-rep --page details > $OUT/details_$c.txt 2>&1
  ncu -i /tmp/p_$c.ncu-rep --page source --print-source sass --csv > $OUT/sass_$c.csv 2>/dev/null
  grep -E "Duration|DRAM Throughput|Memory Throughput|Warp Cycles Per Issued|L2 Hit|Issue Slots Busy" $OUT/details_$c.txt | head -8
  ls -la $OUT/sass_$c.csv
done
