# Call 4 (session 49): ncu of HEAD's sm90a forward at the paper grid's long full rows, where FA4 led
# by 3-7% in session 40 (bf16 d128 full S16384 645.6 vs 689.9 TFLOP/s; d64 529.8 vs 548.4): pipe
# use, warp stalls, scheduler and instruction statistics, and the per-SASS-instruction source
# counters (summarised by session 48's sass_stalls.py on this machine).
set -u
export CARRY=.carry_s49
. tools/bench/device_call.sh
dc_unpack head
export PYTHONPATH=$DC_AB/head/py
for d in 128 64; do
  timeout 200 ncu --clock-control none --kernel-name regex:"fwd_kernel" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis --section InstructionStats \
    --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters --import-source no \
    -o /tmp/fwd_d$d -f python3 kernels/hopper/profile_one.py --dtype bf16 --head_dim $d --seqlen 16384 \
    > $OUT/ncu_d$d.log 2>&1
  echo "ncu d$d rc=$?"; tail -2 $OUT/ncu_d$d.log
  ncu -i /tmp/fwd_d$d.ncu-rep --page source --csv --print-source sass 2>$OUT/src_err_d$d.txt | gzip > $OUT/src_d$d.csv.gz
  ncu -i /tmp/fwd_d$d.ncu-rep --page details > $OUT/details_d$d.txt 2>&1
  grep -E "Duration|Compute \(SM\) Throughput|Issue Slots Busy|Executed Ipc A|Warp Cycles Per Issued|No Eligible|Executed Instructions  " $OUT/details_d$d.txt | head -12
done
dc_finish
