# Session 56 call 1 (after the models call): on the build with sm90a sinks keeping no O residual
# (`new`, .carry_s56): which forward tile causal sliding windows want (fwd_window_tiles.py, alone on
# the GPU: forced tiles, kernel-only), then the suites the residual rule, the launcher's tile pick
# and the sinks touch.
set -u
export CARRY=.carry_s56 DC_DEADLINE=560
. tools/bench/device_call.sh
dc_unpack new
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv
PYTHONPATH=$DC_AB/new/py timeout 200 python3 docs/results/2026-12-01-h200-session56/scripts/fwd_window_tiles.py \
  $OUT/fwd_window_tiles.json > $OUT/fwd_window_tiles.txt 2>&1
echo "fwd_window_tiles rc=$? at $(dc_elapsed) s"; cat $OUT/fwd_window_tiles.txt | cut -c1-200 | tail -25
dc_suites "gpu_h200_features:300 gpu_h200_hf:300 gpu_h200_fuzz:300 gpu_h200_edge:240 gpu_h200:300"
dc_finish
