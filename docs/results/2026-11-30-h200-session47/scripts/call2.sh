# Session 47, device call 2 (H200): the unmasked default backward's query-block walk rotated per key
# block (`rot`: bwd_cta.cuh m_rot, each key block starting at query block n mod m_count, so the
# CTAs of a head do not reduce-add into the same dq_accum rows at the same time) against HEAD
# (`head`, 0b9912d). Kernel-only A/B (CUDA-graph replay): bf16 two rounds and fp16 one round at
# d64 / d128, S 1024-16384 (the causal rows are controls: their kernels do not rotate), d96 / 192 /
# 256 one bf16 round; then the backward and feature suites on rot.
# Carry .carry_s47: bundle/ (rot), head / rot .tar.xz.
set -u
export CARRY=.carry_s47 DC_DEADLINE=400
. tools/bench/device_call.sh
dc_unpack head rot
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"
dc_ab 2 head rot -- --dtype bf16 --passes bwd --dims 64,128 --seqlens 1024,2048,4096,16384 --nofeatures --rep 25
dc_ab 1 head rot -- --dtype fp16 --passes bwd --dims 64,128 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_ab 1 head rot -- --dtype bf16 --passes bwd --dims 96,192,256 --seqlens 1024,4096 --nofeatures --rep 25
dc_table head rot
dc_suites "gpu_h200_bwd:200 gpu_h200_features:200"
dc_finish
