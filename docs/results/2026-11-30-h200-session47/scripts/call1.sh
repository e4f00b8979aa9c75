# Session 47, device call 1 (H200): head dim 128's backward on FlashAttention-4's causal shape, 64 query
# rows a step instead of 80 (`m64`: tile_policy.h's bwd_tile_policy(128) with block_m 64, every d128
# backward kernel), against HEAD (`head`, 0b9912d). Kernel-only A/B (CUDA-graph replay), bf16 two
# rounds, fp16 one round, S 1024 / 2048 / 4096 / 16384, causal and full; then the backward suite on m64.
# Carry .carry_s47: bundle/ (m64), head / m64 .tar.xz.
set -u
export CARRY=.carry_s47 DC_DEADLINE=420
. tools/bench/device_call.sh
dc_unpack head m64
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"
dc_ab 2 head m64 -- --dtype bf16 --passes bwd --dims 128 --seqlens 1024,2048,4096,16384 --nofeatures --rep 25
dc_ab 1 head m64 -- --dtype fp16 --passes bwd --dims 128 --seqlens 1024,2048,4096,16384 --nofeatures --rep 25
dc_table head m64
dc_suites "gpu_h200_bwd:220"
dc_finish
