# Session 43, device call 2 (H200): head dim 64's dQ writer tile in 8-column boxes (`narrow`:
# tile_policy.h bwd_dq_narrow_boxes; [group][rows][8 floats], unswizzled, a 5-D map whose box is a
# whole 64 x 64 slice), so that a half-warp's float2 stores are 128 contiguous bytes (2 wavefronts
# a warp store instead of 4), against `head` (b0c10f7). Kernel-only A/B, alternating processes
# (bf16 three rounds with deterministic and feature rows, fp16 one); memcheck + racecheck of the
# backward kernels on session 42's san_bwd_lag.py (d64 / 56 / 40 / 32) beside the backward and
# feature suites on narrow's bundle.
# Carry .carry_s43: bundle/ (narrow), head / narrow .tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s43 DC_DEADLINE=260
. tools/bench/device_call.sh
dc_unpack head narrow
dc_ab 3 head narrow -- --dtype bf16 --passes bwd --det --dims 64 --seqlens 1024,4096,16384 --rep 25
dc_ab 1 head narrow -- --dtype fp16 --passes bwd --dims 64 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table head narrow
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=240 dc_sanitize narrow docs/results/2026-11-29-h200-session42/scripts/san_bwd_lag.py
dc_suites "gpu_h200_bwd:220 gpu_h200_features:280"
dc_finish
