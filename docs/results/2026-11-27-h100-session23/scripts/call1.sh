# Session 23 call 1 (H100): keep the first part of FA4's library wheel and the bundle in /root/keep
# for call 2; ncu source counters (SASS with per-instruction stall samples) of flashcore's sm90a
# backward main kernel at HEAD, bf16 B4 S4096 H 2048/d, not causal, d64 and d128.
set -u
C=$PWD/.carry_s23a
S=docs/results/2026-11-27-h100-session23/scripts
mkdir -p /root/keep && cp $C/cu13.part.aa $C/attention_bundle.tar.gz /root/keep/
mkdir -p /tmp/fc && tar xzf $C/attention_bundle.tar.gz -C /tmp/fc
R=/tmp/fc/bundle/runfiles
export PYTHONPATH=$R/_main:$R/_main/py:$R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
python3 -c "import flashcore; print(flashcore.build_info().get('git_commit', '?'))"
for d in 64 128; do
  timeout 240 ncu --clock-control none --profile-from-start off -k regex:bwd_kernel -c 1 --section SpeedOfLight \
    --section InstructionStats --section WarpStateStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section SourceCounters \
    -o /tmp/fc_$d -f python3 $S/prof_bwd.py flashcore $d > /tmp/ncu_fc_$d.log 2>&1
  echo "ncu fc bwd $d rc=$?"; tail -3 /tmp/ncu_fc_$d.log
  ncu -i /tmp/fc_$d.ncu-rep --page source --print-source sass --csv | gzip > $OUT/sass_fc_bwd_$d.csv.gz
  ncu -i /tmp/fc_$d.ncu-rep --page details > $OUT/details_fc_bwd_$d.txt 2>&1
  grep -E "Duration|Executed Instructions  |Issue Slots Busy|Warp Cycles Per Issued" $OUT/details_fc_bwd_$d.txt
done
ls -la $OUT /root/keep
