# Session 43, device call 5 (H200): a second reading of call 4's A/B (`frag`: the fragment order as
# landed -- call 4's fragf2 build; the landed commit differs from it only in comments), against
# `head` (b0c10f7): bf16 two rounds (default, deterministic, feature rows), fp16 two rounds.
# Carry .carry_s43: head / frag .tar.xz (py trees).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s43 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack head frag
dc_ab 2 head frag -- --dtype bf16 --passes bwd --det --dims 64 --seqlens 1024,4096,16384 --rep 25
dc_ab 2 head frag -- --dtype fp16 --passes bwd --dims 64 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table head frag
dc_finish
