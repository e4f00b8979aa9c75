# Session 57 call 1: on the build that lets pack-GQA take sliding windows (`new`, .carry_s57: the
# scheduler counts a window's growing blocks in positions), which (pack, tile) causal windows want
# (fwd_window_pack.py, alone on the GPU: forced tiles and the pack switch, kernel-only), then the
# feature suite (its pack-GQA tests now include left windows).
set -u
export CARRY=.carry_s57 DC_DEADLINE=560
. tools/bench/device_call.sh
dc_unpack new
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv
PYTHONPATH=$DC_AB/new/py timeout 240 python3 docs/results/2026-12-01-h200-session57/scripts/fwd_window_pack.py \
  $OUT/fwd_window_pack.json > $OUT/fwd_window_pack.txt 2>&1
echo "fwd_window_pack rc=$? at $(dc_elapsed) s"; cut -c1-250 $OUT/fwd_window_pack.txt | tail -25
dc_suites "gpu_h200_features:320"
dc_finish
