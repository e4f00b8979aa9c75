# Session 45, device call 1 (H200): head dim 128's backward with dV issued behind the dQ^T GEMM
# (`dvlast`: dK alone before the dS barrier, the dQ^T slice stored while dV runs) against HEAD
# (`head`, 441a735): kernel-only A/B, bf16 two rounds (default + deterministic + feature rows),
# fp16 one round; memcheck + racecheck of the backward kernels on san_bwd_d128.py beside the
# backward and feature suites. Carry .carry_s45: bundle/ (dvlast), head / dvlast .tar.xz.
set -u
S=docs/results/2026-11-29-h200-session45/scripts
export CARRY=.carry_s45 DC_DEADLINE=500
. tools/bench/device_call.sh
dc_unpack head dvlast
dc_ab 2 head dvlast -- --dtype bf16 --passes bwd --det --dims 128 --seqlens 1024,4096,16384 --rep 25
dc_ab 1 head dvlast -- --dtype fp16 --passes bwd --dims 128 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table head dvlast
DC_SAN_KERNELS=kns=bwd_kernel DC_SAN_TIMEOUT=300 dc_sanitize dvlast $S/san_bwd_d128.py
dc_suites "gpu_h200_bwd:200 gpu_h200_features:200"
dc_finish
