# Session 41, device call 3 (H200). First the backward's timeline on the diagnostic build `trace`
# (../bwd_trace.diff over the final kernels: clock64 stamps at 17 points of each consumer step;
# bwd_timeline.py), alone on the GPU. Then the final build (`ad5676b`: the producer split, head dim
# 96's scores issued ahead, mbar_try_wait; its kernels SASS-identical to call 2's `split` forward,
# call 1's `ahead` backward at 96 and HEAD's backward elsewhere): the suites not yet run on it (hf,
# fuzz, paged forward, KV cache) and memcheck + racecheck of the forward on the paged paths
# (san_paged_fwd.py).
# Carry .carry_s41: bundle/ (final), final.tar.xz and trace.tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s41 DC_DEADLINE=200
. tools/bench/device_call.sh
dc_unpack final trace
PYTHONPATH=$DC_AB/trace/py:tools/bench timeout 200 python3 docs/results/2026-11-29-h200-session41/scripts/bwd_timeline.py \
  --out "$OUT/timeline" 2>&1 | tail -30
echo "timeline done at $(dc_elapsed) s"
DC_SAN_TIMEOUT=300 dc_sanitize final docs/results/2026-11-29-h200-session41/scripts/san_paged_fwd.py
dc_suites "gpu_h200_hf:120 gpu_h200_fuzz:200 gpu_h200_paged_forward:200 gpu_h200_kvcache:220"
dc_finish
