# Session 22 call 2 (H100, right after call 1): install FA4 (second wheel half carried, first kept
# by call 1); ncu source counters of FA4's d64 and d128 forward at call 1's shapes.
set -u
C=$PWD/.carry_s22b
S=docs/results/2026-11-25-h100-session22/scripts
big=$(cat $C/fa4/b/BIG_WHEEL_NAME)
cat /root/keep/cu13.part.* $C/fa4/b/cu13.part.* > /tmp/$big
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/fa4 /tmp/$big $C/fa4/b/*.whl 2>&1 | tail -2
export PYTHONPATH=/tmp/fa4:/tmp/fa4/nvidia_cutlass_dsl/dsl_packages
for d in 64 128; do
  timeout 240 ncu --clock-control none --profile-from-start off -k regex:flash_fwd -c 1 --section SpeedOfLight \
    --section InstructionStats --section WarpStateStats --section ComputeWorkloadAnalysis --section SourceCounters \
    -o /tmp/fa4_$d -f python3 $S/prof_one.py fa4 $d > $OUT/ncu_fa4_$d.log 2>&1
  echo "ncu fa4 $d rc=$?"
  ncu -i /tmp/fa4_$d.ncu-rep --page source --print-source sass --csv > $OUT/sass_fa4_$d.csv 2>&1
  ncu -i /tmp/fa4_$d.ncu-rep --page details > $OUT/details_fa4_$d.txt 2>&1
  grep -E "Duration|Executed Instructions  |Issue Slots Busy|Warp Cycles Per Issued" $OUT/details_fa4_$d.txt
done
tail -3 $OUT/ncu_fa4_64.log
