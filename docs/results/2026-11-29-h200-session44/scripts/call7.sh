# Session 44, device call 7 (H200): kernel-only A/B of the backward, `final` (HEAD b9b8ae6's
# kernels) against `ab` (launch-order divisors set on the host, no device divide for MHA; K and the
# first Q loaded before V and the first dO), bf16 d64 / d128, default + deterministic + feature
# rows, two rounds in alternating processes. Carry .carry_s44: final / ab .tar.xz (py trees).
set -u
export CARRY=.carry_s44 DC_DEADLINE=420
. tools/bench/device_call.sh
dc_unpack final ab
dc_ab 2 final ab -- --dtype bf16 --passes bwd --det --dims 64,128 --seqlens 1024,4096,16384 --rep 25
dc_table final ab
dc_finish
