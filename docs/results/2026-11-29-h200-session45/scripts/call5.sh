# Session 45, device call 5 (H200): the backward's first product GEMM (dV at 64 / 96, dK at 128)
# issued right after P^T / dS^T are packed, before the dS^T stores and their fence (`early`), against
# the landed build (`landed`, 6ea5ee4): kernel-only A/B, bf16 two rounds at 64 / 96 / 128 (default,
# deterministic, feature rows), fp16 one round at 64 / 128; the backward suite on early.
# Carry .carry_s45: bundle/ (early), landed / early .tar.xz.
set -u
export CARRY=.carry_s45 DC_DEADLINE=420
. tools/bench/device_call.sh
dc_unpack landed early
dc_ab 2 landed early -- --dtype bf16 --passes bwd --det --dims 64,96,128 --seqlens 1024,4096,16384 --rep 25
dc_ab 1 landed early -- --dtype fp16 --passes bwd --dims 64,128 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table landed early
dc_suites "gpu_h200_bwd:200"
dc_finish
