# Session 46, device call 6 (H200): head dim 96's default backward with its dQ lagged a step
# (`lag96`, tile_policy.h bwd_dq_lagged) against HEAD (`head`, 08d3433; its d96 kernels are the
# landed ones): kernel-only A/B, bf16 two rounds (default + deterministic, the latter unchanged),
# fp16 one round; memcheck + racecheck of the backward kernels at 96 / 80; the backward and
# feature suites. Carry .carry_s46: bundle/ (lag96), head / lag96 .tar.xz.
set -u
S=docs/results/2026-11-29-h200-session46/scripts
export CARRY=.carry_s46 DC_DEADLINE=240
. tools/bench/device_call.sh
dc_unpack head lag96
dc_ab 2 head lag96 -- --dtype bf16 --passes bwd --det --dims 96 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_ab 1 head lag96 -- --dtype fp16 --passes bwd --dims 96 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table head lag96
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=200 dc_sanitize lag96 $S/san_bwd_d96.py
dc_suites "gpu_h200_bwd:220 gpu_h200_features:220"
dc_finish
