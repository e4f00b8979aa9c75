# Session 22 call 3 (H100): ncu source counters (SASS with
# executed-instruction counts) of flashcore's d64 and d128 forward, bf16 B4 S4096 H32/H16 full.
set -u
C=$PWD/.carry_s22c
S=docs/results/2026-11-25-h100-session22/scripts
mkdir -p /tmp/nb && tar xzf $C/narrow_attention_bundle.tar.gz -C /tmp/nb
R=/tmp/nb/bundle/runfiles
export PYTHONPATH=$R/_main:$R/_main/py:$R
nvidia-smi --query-gpu=name,clocks.sm,power.limit,temperature.gpu --format=csv
for d in 64 128; do
  timeout 200 ncu --clock-control none --profile-from-start off -k regex:fwd_kernel -c 1 --section SpeedOfLight \
    --section InstructionStats --section WarpStateStats --section ComputeWorkloadAnalysis --section SourceCounters \
    -o /tmp/fc_$d -f python3 $S/prof_one.py flashcore $d > $OUT/ncu_fc_$d.log 2>&1
  echo "ncu fc $d rc=$?"
  ncu -i /tmp/fc_$d.ncu-rep --page source --print-source sass --csv > $OUT/sass_fc_$d.csv 2>&1
  ncu -i /tmp/fc_$d.ncu-rep --page details > $OUT/details_fc_$d.txt 2>&1
  grep -E "Duration|Executed Instructions  |Issue Slots Busy|Warp Cycles Per Issued" $OUT/details_fc_$d.txt
done
ls -la $OUT
