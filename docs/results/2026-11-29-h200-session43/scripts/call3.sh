# Session 43, device call 3 (H200): head dim 64's dq_accum in fragment order (`fragf`:
# kernels/common/dq_accum_layout.h, tile_policy.h bwd_dq_fragments): each consumer stores its
# 64 x 64 slice as 8 STS.128 in the wgmma accumulator's order, the writer adds it with one 1-D bulk
# reduce (16 KB), the row kernels zero and convert by the same map. Against `head` (b0c10f7).
# Kernel-only A/B (preprocess + main + convert), alternating processes: bf16 three rounds (default,
# deterministic, feature rows), fp16 one; memcheck + racecheck of the backward kernels on session
# 42's san_bwd_lag.py (d64 / 56 / 40 / 32) beside the backward, feature, fuzz, edge and HF suites.
# Carry .carry_s43: bundle/ (fragf), head / fragf .tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s43 DC_DEADLINE=260
. tools/bench/device_call.sh
dc_unpack head fragf
dc_ab 3 head fragf -- --dtype bf16 --passes bwd --det --dims 64 --seqlens 1024,4096,16384 --rep 25
dc_ab 1 head fragf -- --dtype fp16 --passes bwd --dims 64 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table head fragf
DC_SAN_KERNELS=kns=bwd DC_SAN_TIMEOUT=300 dc_sanitize fragf docs/results/2026-11-29-h200-session42/scripts/san_bwd_lag.py
dc_suites "gpu_h200_bwd:220 gpu_h200_features:280 gpu_h200_fuzz:200 gpu_h200_edge:100 gpu_h200_hf:150"
dc_finish
