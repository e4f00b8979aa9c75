# Session 42, device call 1 (H200): the sm90a backward at head dim 64 with each step's dQ GEMM
# taken one step late (`lag`: bwd_kernel.cuh kDqLagged, the consumers no longer meet at a dS^T
# barrier every step), and the same with consumer 1 started half a step behind consumer 0
# (`skew`: FLASHCORE_BWD_DQ_SKEW), against HEAD (e54a28c's kernels, `head`). Kernel-only A/B
# (ab_kernels.py --passes bwd) in alternating processes: bf16 three rounds at d64 over S 1024 /
# 4096 / 16384 with the feature rows and the deterministic backward, fp16 one round; then
# memcheck + racecheck of the backward kernels on san_bwd_lag.py beside the backward suite (lag).
# Carry .carry_s42: bundle/ (lag), head / lag / skew .tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s42 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack head lag skew
dc_ab 3 head lag skew -- --dtype bf16 --passes bwd --det --dims 64 --seqlens 1024,4096,16384 --rep 25
dc_ab 1 head lag skew -- --dtype fp16 --passes bwd --dims 64 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table head lag skew
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=240 dc_sanitize lag docs/results/2026-11-29-h200-session42/scripts/san_bwd_lag.py
dc_suites "gpu_h200_bwd:220"
dc_finish
