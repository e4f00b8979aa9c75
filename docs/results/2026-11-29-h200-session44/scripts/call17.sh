# Session 44, device call 17 (H200): each CTA's producer prefetches into L2 the first tiles (K, V,
# the first Q and dO) of the CTA launched one SM count later (`pf`), against `head` (f3efec6);
# kernel-only, bf16 d64 / d128 default + deterministic + feature rows, two rounds.
# Carry .carry_s44: head / pf .tar.xz (py trees).
set -u
export CARRY=.carry_s44 DC_DEADLINE=300
. tools/bench/device_call.sh
dc_unpack head pf
dc_ab 2 head pf -- --dtype bf16 --passes bwd --det --dims 64,128 --seqlens 1024,4096,16384 --rep 25
dc_table head pf
dc_finish
