# Call 1 (session 49): the device call that measures prepared/bwd_d64_dv_under_last_dq.diff
# (`dvlast`) against HEAD (`head`). Build each tree's //tests:gpu_h200_bundle, carry its py tree as
# <build>.tar.xz in .carry_s49 (tar cJf <build>.tar.xz -C <bundle>/runfiles/_main py) and dvlast's
# bundle as bundle/gpu_h200_bundle.tar.gz. Session 48 checked: it builds; ptxas 168 registers, 0
# spills, no C7519 / C7512 in the d64 TUs; exactly the 12 sm90a d64 default backward kernels change
# SASS (bf16 / fp16 x causal / full x plain / sink / packed softcap), every other of the 449
# functions is identical; _C.so (py312) 32,073,792 -> 32,131,136 bytes.
# What it does: at head dim 64 with the lagged dQ, dV is staged and stored while the last dQ GEMM
# runs, and dK after it, each through the consumer's own 64 rows of the V tile (only its dP^T reads
# them), so the epilogue loses the cross-consumer barrier and dV's stores leave the CTA's tail.
# Predicted: d64 S1024 rows +0.5..+1.5% (session 44's stamps: epilogue ~2,380 of ~27,400 clocks a
# CTA at causal S1024; ~300 of them move under the GEMM), S4096 / S16384 within noise. Needs the
# suites and racecheck (the V rows are reused for dK after dV's copy-out: a warpgroup barrier between).
set -u
export CARRY=.carry_s49 DC_DEADLINE=330
. tools/bench/device_call.sh
dc_unpack head dvlast
dc_ab 3 head dvlast -- --dtype bf16 --passes bwd --dims 64 --seqlens 1024,2048,4096,16384 --rep 20
dc_ab 2 head dvlast -- --dtype fp16 --passes bwd --dims 64 --seqlens 1024,4096 --rep 20
dc_table head dvlast
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=240 dc_sanitize dvlast docs/results/2026-11-29-h200-session46/scripts/san_bwd_lag.py
dc_suites "gpu_h200_bwd:200 gpu_h200_features:200 gpu_h200_fuzz:200 gpu_h200_edge:100"
dc_finish
