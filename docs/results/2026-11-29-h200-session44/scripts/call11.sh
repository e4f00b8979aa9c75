# Session 44, device call 11 (H200): head dim 64's half-step consumer offset (bwd_kernel.cuh: consumer
# 1 starts once consumer 0 has its first P^T) only for CTAs of at least T steps: `head` (f3efec6,
# every CTA), `nooff` (T = 10^9: none), `off16` (T = 16); kernel-only, bf16 d64 default backward
# + feature rows, S 1024 / 2048 / 4096 / 16384, three rounds in alternating processes.
# Carry .carry_s44: head / nooff / off16 .tar.xz (py trees).
set -u
export CARRY=.carry_s44 DC_DEADLINE=400
. tools/bench/device_call.sh
dc_unpack head nooff off16
dc_ab 3 head nooff off16 -- --dtype bf16 --passes bwd --dims 64 --seqlens 1024,2048,4096,16384 --rep 25
dc_table head nooff off16
dc_finish
