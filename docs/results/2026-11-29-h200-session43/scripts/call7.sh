# Session 43, device call 7 (H200): the stores-only timing test of section 1 at the other split-keys
# tiles (`f128`, dropped/frag_timing_d128.diff; wrong dQ, timing only): head dim 128's transposed
# 80-row slices as 10 STS.128 of dQ^T's fragments instead of 40 scalar stores, and head dim 96's
# 64-column slice (and the shared-keys 192 / 256 slices) as STS.128 instead of swizzled STS.64.
# Against `final` (5e4bbc9). Kernel-only A/B, alternating processes: d128 bf16 two rounds (default,
# deterministic, feature rows), fp16 one; d96 bf16 one.
# Carry .carry_s43: final / f128 .tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s43 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack final f128
dc_ab 2 final f128 -- --dtype bf16 --passes bwd --det --dims 128 --seqlens 1024,4096,16384 --rep 25
dc_ab 1 final f128 -- --dtype fp16 --passes bwd --dims 128 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_ab 1 final f128 -- --dtype bf16 --passes bwd --det --dims 96 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table final f128
dc_finish
