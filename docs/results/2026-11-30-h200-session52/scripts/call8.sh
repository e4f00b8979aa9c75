# Call 8 (session 52): ncu of the bf16 d64 causal backward's main kernel (S4096), plain and softcap
# 30, the landed kernels (the backward is SASS-identical to HEAD's): XU (MUFU) pipe share, issue
# activity, the MIO-queue and fixed-latency stalls -- whether the MUFU bounds the softcap backward.
set -u
export CARRY=.carry_s52 DC_DEADLINE=200
. tools/bench/device_call.sh
S=docs/results/2026-11-30-h200-session52/scripts
dc_unpack final
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
for sc in 0 30; do
  echo "== softcap $sc" | tee -a $OUT/ncu_bwd.txt
  PYTHONPATH=$DC_AB/final/py timeout 120 $NCU --kernel-name regex:"bwd.*kernel" --launch-skip 0 --launch-count 8 \
    --metrics "gpu__time_duration.sum,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio" \
    python3 $S/softcap_bwd_ncu_case.py $sc 2>&1 | grep -E "_kernel|gpu__|smsp__|sm__" | sed "s/  */ /g" | cut -c1-160 | tee -a $OUT/ncu_bwd.txt
done
dc_finish
