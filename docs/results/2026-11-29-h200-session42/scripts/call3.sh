# Session 42, device call 3 (H200): the final build (`final`: tile_policy.h bwd_dq_lagged -- head
# dim 64's default backward takes each step's dQ GEMM one step late, consumer 1 half a step behind)
# against HEAD (e54a28c's kernels, `head`). Kernel-only A/B (ab_kernels.py --passes bwd) in
# alternating processes: bf16 three rounds over d64 / d96 / d128 at S 1024 / 4096 / 16384 with the
# feature rows and the deterministic backward (d96 / d128 / d64-deterministic kernels differ from
# HEAD only in ptxas's scheduling: the control), fp16 one round at d64; then memcheck + racecheck
# of the backward kernels on san_bwd_lag.py beside the backward and feature suites.
# Carry .carry_s42: bundle/ (final), head.tar.xz, final.tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s42 DC_DEADLINE=330
. tools/bench/device_call.sh
dc_unpack head final
dc_ab 3 head final -- --dtype bf16 --passes bwd --det --dims 64,96,128 --seqlens 1024,4096,16384 --rep 25
dc_ab 1 head final -- --dtype fp16 --passes bwd --det --dims 64 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table head final
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=240 dc_sanitize final docs/results/2026-11-29-h200-session42/scripts/san_bwd_lag.py
dc_suites "gpu_h200_bwd:220 gpu_h200_features:280"
dc_finish
