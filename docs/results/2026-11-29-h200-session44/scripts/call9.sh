# Session 44, device call 9 (H200): kernel-only A/B of the backward, `final` (HEAD's kernels),
# `ab` (call 7: host-set divisors + split first loads) and `tma` (host-set divisors + dK / dV by
# the TMA; the split loads dropped), bf16 d64 / d128, default + deterministic + feature rows, two
# rounds in alternating processes; then memcheck / racecheck of `tma`'s backward kernels.
# Carry .carry_s44: final / ab / tma .tar.xz (py trees).
set -u
S=docs/results/2026-11-29-h200-session44/scripts
export CARRY=.carry_s44 DC_DEADLINE=330
. tools/bench/device_call.sh
dc_unpack final ab tma
dc_ab 2 final ab tma -- --dtype bf16 --passes bwd --det --dims 64,128 --seqlens 1024,4096,16384 --rep 25
dc_table final ab tma
DC_SAN_KERNELS=kns=bwd_kernel dc_sanitize tma $S/san_bwd_epilogue.py
wait
for t in memcheck racecheck; do echo "-- $t"; grep -E "SUMMARY|rc=|done" $OUT/san_$t.log | head -4; done
dc_finish
