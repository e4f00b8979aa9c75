# Call 7 (session 52): which exp2s the bounded d64 step moves: a third of its elements by flat
# fragment index (`flat`: element 4t + 2h + e with index % 3 == 2, spread through the MUFU stream)
# against whole n8 column groups (`final`, landed: every 3rd group) and HEAD. Kernel-only forward
# A/B, alternating processes, bf16 d64, three rounds; then the MIO stall of `flat` (ncu).
set -u
export CARRY=.carry_s52 DC_DEADLINE=420
. tools/bench/device_call.sh
S=docs/results/2026-11-30-h200-session52/scripts
dc_unpack head final flat
dc_ab 3 head final flat -- --passes fwd --dims 64 --softcaps 0,30,50 --seqlens 1024,4096,16384 --nofeatures
dc_table head final flat
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
PYTHONPATH=$DC_AB/flat/py timeout 100 $NCU --kernel-name regex:fwd_kernel --launch-skip 1 --launch-count 1 \
  --metrics "gpu__time_duration.sum,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active" \
  python3 $S/softcap_ncu_case.py 30 2>&1 | grep -E "gpu__|smsp__|sm__" | sed 's/  */ /g' | tee $OUT/ncu_flat_30.txt
dc_finish
