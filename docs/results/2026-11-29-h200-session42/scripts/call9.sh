# Session 42, device call 9 (H200): ncu source counters (SASS with per-instruction executed counts
# and stall samples) of the landed build's sm90a backward main kernel, bf16 B4 S4096 H32 d64, full
# and causal (session 23's prof_bwd.py), for the next step of issue 14: where a d64 consumer's
# ~4,560-clock step stalls now that the consumers run half a step apart.
# Carry .carry_s42: final.tar.xz (py tree).
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p /tmp/fc && tar xJf .carry_s42/final.tar.xz -C /tmp/fc
S=docs/results/2026-11-27-h100-session23/scripts
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv
for c in full causal; do
  PYTHONPATH=/tmp/fc/py timeout 200 ncu --clock-control none --profile-from-start off -k regex:bwd_kernel -c 1 \
    --section SpeedOfLight --section InstructionStats --section WarpStateStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section SourceCounters \
    -o /tmp/fc_$c -f python3 $S/prof_bwd.py flashcore 64 $([ $c = causal ] && echo causal) > /tmp/ncu_$c.log 2>&1
  echo "ncu $c rc=$?"; tail -2 /tmp/ncu_$c.log
  ncu -i /tmp/fc_$c.ncu-rep --page source --print-source sass --csv | gzip > $OUT/sass_bwd_d64_$c.csv.gz
  ncu -i /tmp/fc_$c.ncu-rep --page details > $OUT/details_bwd_d64_$c.txt 2>&1
  grep -E "Duration|Executed Instructions  |Issue Slots Busy|Warp Cycles Per Issued|Tensor" $OUT/details_bwd_d64_$c.txt | head
done
