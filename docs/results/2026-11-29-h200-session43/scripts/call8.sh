# Session 43, device call 8 (H200): why call 7's 16-byte dQ^T stores made head dim 128 slower.
# ncu (SpeedOfLight, WarpStateStats, MemoryWorkloadAnalysis, InstructionStats) of the sm90a
# backward main kernel, bf16 B4 S4096 H32 d128 full (session 23's prof_bwd.py), on `final`
# (5e4bbc9) and `f128` (dropped/frag_timing_d128.diff). Carry .carry_s43: final / f128 .tar.xz.
set -u
cd "$(dirname "$0")/../../../.."
S=docs/results/2026-11-27-h100-session23/scripts
for b in final f128; do
  mkdir -p /tmp/fc_$b && tar xJf .carry_s43/$b.tar.xz -C /tmp/fc_$b
  PYTHONPATH=/tmp/fc_$b/py timeout 150 ncu --clock-control none --profile-from-start off -k regex:bwd_kernel -c 1 \
    --section SpeedOfLight --section InstructionStats --section WarpStateStats --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis \
    -o /tmp/ncu_$b -f python3 $S/prof_bwd.py flashcore 128 > /tmp/ncu_$b.log 2>&1
  echo "ncu $b rc=$?"; tail -2 /tmp/ncu_$b.log
  ncu -i /tmp/ncu_$b.ncu-rep --page details > $OUT/details_bwd_d128_$b.txt 2>&1
  ncu -i /tmp/ncu_$b.ncu-rep --page raw --csv 2>/dev/null | gzip > $OUT/raw_bwd_d128_$b.csv.gz
  grep -E "Duration|Executed Instructions  |Issue Slots Busy|Warp Cycles Per Issued|Shared|Bank" $OUT/details_bwd_d128_$b.txt | head -20
done
