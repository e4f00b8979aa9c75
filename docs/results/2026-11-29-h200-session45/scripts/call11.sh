# Session 45, device call 11 (H200): ncu of the sm90a backward main kernel at d128 (bf16 B4 S4096
# H16, full; session 23's prof_bwd.py), HEAD at the start (`head`, 441a735) and the landed build
# (`landed`, 6ea5ee4): is the step's post-barrier phase now bound by shared memory (section 3 of
# the write-up)? Speed-of-light, memory workload (shared wavefronts), warp states, pipe use.
# Carry .carry_s45: head / landed .tar.xz (py trees).
set -u
S=docs/results/2026-11-27-h100-session23/scripts
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
for b in head landed; do
  mkdir -p /tmp/fc_$b && tar xJf .carry_s45/$b.tar.xz -C /tmp/fc_$b
  PYTHONPATH=/tmp/fc_$b/py timeout 120 ncu --clock-control none --profile-from-start off -k regex:bwd_kernel -c 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
    --section ComputeWorkloadAnalysis --section WarpStateStats --section InstructionStats \
    -o /tmp/ncu_$b -f python3 $S/prof_bwd.py flashcore 128 > /tmp/ncu_$b.log 2>&1
  echo "ncu $b rc=$?"; tail -1 /tmp/ncu_$b.log
  ncu -i /tmp/ncu_$b.ncu-rep --page details > $OUT/details_bwd_d128_$b.txt 2>&1
  ncu -i /tmp/ncu_$b.ncu-rep --page raw --csv > $OUT/raw_bwd_d128_$b.csv 2>&1
  grep -E "Duration|Executed Instructions  |Issue Slots Busy|Warp Cycles Per Issued|L1/TEX Hit|Shared|Tensor|Stall" $OUT/details_bwd_d128_$b.txt | head -30
done
