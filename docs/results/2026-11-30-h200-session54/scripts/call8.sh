# Session 54 call 8: on the landed build, the sm90a decode kernel's cp.async paged walk against its
# TMA walk (walk_by_leftpad.py, no build), then the other suites that reach the decode kernel or
# its API (edge, fuzz, api, paged_forward).
set -u
S=docs/results/2026-11-30-h200-session54/scripts
T0=$(date +%s)
mkdir -p /tmp/late && tar xJf .carry_s54/late.tar.xz -C /tmp/late
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
PYTHONPATH=/tmp/late/py timeout 240 python3 $S/walk_by_leftpad.py 3 16,32,256 2>&1 | tee $OUT/walk_by_leftpad.txt
echo "timing done at $(( $(date +%s) - T0 )) s"
SUITES_WORK=/tmp/dc_suites CARRY=.carry_s54/bundle \
  SUITES="gpu_h200_edge:240 gpu_h200_fuzz:300 gpu_h200_api:200 gpu_h200_paged_forward:240" OUT=$OUT/suites \
  bash tools/bench/gpu_suites.sh 2>&1 | tail -6
echo "all done at $(( $(date +%s) - T0 )) s"
