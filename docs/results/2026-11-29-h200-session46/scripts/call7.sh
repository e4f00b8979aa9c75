# Session 46, device call 7 (H200): call 6's A/B again (head dim 96's lagged dQ, `lag96`, against
# `head`), bf16 two rounds and fp16 one, default mode only. Carry .carry_s46: head / lag96 .tar.xz.
set -u
export CARRY=.carry_s46 DC_DEADLINE=200
. tools/bench/device_call.sh
dc_unpack head lag96
dc_ab 2 head lag96 -- --dtype bf16 --passes bwd --dims 96 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_ab 1 head lag96 -- --dtype fp16 --passes bwd --dims 96 --seqlens 1024,4096,16384 --nofeatures --rep 25
dc_table head lag96
dc_finish
