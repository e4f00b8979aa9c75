# Session 46, device call 2 (H200): `lagonly` (head dim 128's lagged dQ^T without the programmatic
# launches) against HEAD (`head`, 08d3433) and `lag` (call 1's build, with them): kernel-only A/B
# bf16 two rounds (d64 / d128 paper rows; d128 deterministic), fp16 one round, the feature rows
# (window, softcap, sink) one round; then memcheck + racecheck of the backward kernels and the
# backward, feature, fuzz, edge and HF suites on `lagonly`.
# Carry .carry_s46: bundle/ (lagonly), head / lag / lagonly .tar.xz.
set -u
S=docs/results/2026-11-29-h200-session46/scripts
export CARRY=.carry_s46 DC_DEADLINE=330
. tools/bench/device_call.sh
dc_unpack head lag lagonly
dc_ab 2 head lag lagonly -- --dtype bf16 --passes bwd --dims 64,128 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_ab 1 head lagonly -- --dtype bf16 --passes bwd --det --dims 128 --seqlens 1024,16384 --sink --rep 25
dc_ab 1 head lagonly -- --dtype fp16 --passes bwd --dims 128 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table head lag lagonly
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=240 dc_sanitize lagonly $S/san_bwd_lag.py
dc_suites "gpu_h200_bwd:220 gpu_h200_features:220 gpu_h200_fuzz:200 gpu_h200_edge:100 gpu_h200_hf:150"
dc_finish
