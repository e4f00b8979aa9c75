# Session 42, device call 10 (H200): head dim 64's lagged backward with its dS^T stores published
# by the dQ slice's proxy fence instead of a fence of their own (`defer`: one fence.proxy.async --
# MEMBAR.ALL.CTA + FENCE.VIEW.ASYNC.S -- fewer a step; call 9's ncu put ~2.5% of the stall samples
# on each of the two fences), against the landed build (`final`). Kernel-only A/B
# (ab_kernels.py --passes bwd) in alternating processes, d64 bf16 three rounds with the feature
# rows and the deterministic backward, fp16 one round; memcheck + racecheck of the backward kernels
# on san_bwd_lag.py beside the backward and feature suites (defer).
# Carry .carry_s42: bundle/ (defer), final / defer .tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s42 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack final defer
dc_ab 3 final defer -- --dtype bf16 --passes bwd --det --dims 64 --seqlens 1024,4096,16384 --rep 25
dc_ab 1 final defer -- --dtype fp16 --passes bwd --dims 64 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table final defer
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=240 dc_sanitize defer docs/results/2026-11-29-h200-session42/scripts/san_bwd_lag.py
dc_suites "gpu_h200_bwd:220 gpu_h200_features:280"
dc_finish
