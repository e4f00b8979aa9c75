# Call 5 (session 52): ncu of the bf16 d64 causal forward (S4096), plain and softcap 30, HEAD's
# kernels and the landed ones: pipe utilisation (XU = MUFU, FMA, ALU, tensor), issue activity and
# the warp stall split.
set -u
export CARRY=.carry_s52 DC_DEADLINE=300
. tools/bench/device_call.sh
S=docs/results/2026-11-30-h200-session52/scripts
dc_unpack head final
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
for b in head final; do
  for sc in 0 30; do
    echo "== $b softcap $sc" | tee -a $OUT/ncu.txt
    PYTHONPATH=$DC_AB/$b/py timeout 120 $NCU --kernel-name regex:fwd_kernel --launch-skip 1 --launch-count 1 \
      --section ComputeWorkloadAnalysis --section WarpStateStats --section InstructionStats --section SchedulerStats \
      --metrics sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum \
      python3 $S/softcap_ncu_case.py $sc > $OUT/ncu_${b}_$sc.txt 2>&1
    grep -E "pipe_|issue_active|gpu__time|Stall|Issue Slot|Warp Cycles|No Eligible|Executed Ipc" $OUT/ncu_${b}_$sc.txt | sed 's/  */ /g' | tee -a $OUT/ncu.txt
  done
done
dc_finish
