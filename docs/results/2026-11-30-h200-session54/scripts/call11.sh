# Session 54 call 11: the bounded softcap step's row sums on the tensor cores (`tc`: an mma.sync
# m16n8k16 of P V's bf16 A fragments against ones, per k16 step) against the landed softcap fix
# (`fix`, 07181f3: P pairs rounded before fp32 sums) and the build before it (`base`, 86e4887):
# fuzz and edge (with the one-key-rows test) on tc's bundle, then a kernel-only forward A/B of the
# bf16 d64 / d128 rows, softcap 0 and 30, rounds until the deadline.
set -u
export CARRY=.carry_s54 DC_DEADLINE=200
. tools/bench/device_call.sh
dc_unpack base fix tc
dc_suites "gpu_h200_fuzz:200 gpu_h200_edge:200"
dc_ab 2 base fix tc -- --passes fwd --dims 64,128 --softcaps 0,30 --seqlens 4096,16384 --nofeatures
dc_table base fix tc
dc_finish
