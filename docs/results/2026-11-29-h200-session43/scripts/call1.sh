# Session 43, device call 1 (H200): what the dQ slice's shared stores cost at head dim 64. `frag`
# stores each consumer's 64 x 64 fp32 slice as 8 STS.128 in fragment order ([16-byte chunk][thread])
# into the same 16 KB of the writer's tile, instead of 16 swizzled STS.64 (4 wavefronts each where
# 2 would do); the writer reduces the tile unchanged. Timing only: frag's dQ is wrong (its tile is
# not in the map's row order), so no checks run. Against `head` (b0c10f7's kernels). Kernel-only
# A/B, alternating processes: bf16 three rounds (default + deterministic), fp16 one round.
# Carry .carry_s43: head / frag .tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s43 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack head frag
dc_ab 3 head frag -- --dtype bf16 --passes bwd --det --dims 64 --seqlens 1024,4096,16384 --rep 25
dc_ab 1 head frag -- --dtype fp16 --passes bwd --dims 64 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table head frag
dc_finish
