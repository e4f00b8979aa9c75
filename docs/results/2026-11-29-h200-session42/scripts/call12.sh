# Session 42, device call 12 (H200): head dim 64's backward with its lse pairs loaded into
# registers before the S^T wait (`lsepre`: bwd_scores.cuh LsePairs; call 9's ncu put ~5% of the
# stall samples on P^T's FFMAs waiting for those loads), not in the packed-softcap kernels (8 bytes
# spilled there), against the landed kernels (`defer`). Kernel-only A/B in alternating processes,
# d64 bf16 three rounds with the feature rows and the deterministic backward, fp16 one round; then
# memcheck + racecheck of the backward kernels on san_bwd_lag.py beside the backward and feature
# suites (lsepre). One call: little device time was left.
# Carry .carry_s42: bundle/ (lsepre), defer / lsepre .tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s42 DC_DEADLINE=120
. tools/bench/device_call.sh
dc_unpack defer lsepre
dc_ab 3 defer lsepre -- --dtype bf16 --passes bwd --det --dims 64 --seqlens 1024,4096,16384 --rep 25
dc_ab 1 defer lsepre -- --dtype fp16 --passes bwd --dims 64 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table defer lsepre
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=180 dc_sanitize lsepre docs/results/2026-11-29-h200-session42/scripts/san_bwd_lag.py
dc_suites "gpu_h200_bwd:150 gpu_h200_features:150"
dc_finish
