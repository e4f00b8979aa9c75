# Session 46, device call 1 (H200): against HEAD (`head`, 08d3433), (1) `pdl`: the sm90a backward's
# main kernel and dQ convert launched as programmatic dependents; (2) `lag`: pdl plus head dim 128's
# lagged dQ^T (two dS buffers, shared lse / D rows, consumer 1 half a step behind). Kernel-only A/B
# (CUDA-graph replay) bf16 two rounds, fp16 one round, eager bf16 one round; then memcheck + racecheck
# of the backward kernels and the backward, feature and KV-cache suites on `lag`.
# Carry .carry_s46: bundle/ (lag), head / pdl / lag .tar.xz.
set -u
S=docs/results/2026-11-29-h200-session46/scripts
export CARRY=.carry_s46 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack head pdl lag
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > "$OUT/gpu.txt"
dc_ab 2 head pdl lag -- --dtype bf16 --passes bwd --dims 64,128 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_ab 1 head pdl lag -- --dtype fp16 --passes bwd --dims 128 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_ab 1 head pdl lag -- --dtype bf16 --passes bwd --dims 64,128 --seqlens 1024,4096 --nofeatures --rep 25 --eager
dc_table head pdl lag
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=240 dc_sanitize lag $S/san_bwd_lag.py
dc_suites "gpu_h200_bwd:200 gpu_h200_features:200 gpu_h200_kvcache:150"
dc_finish
