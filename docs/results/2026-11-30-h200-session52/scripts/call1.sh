# Call 1 (session 52): part of the sm90a forward's exponentials on the FMA pipe (exp2_poly) against
# HEAD's kernels. polyA: plain d64 every 4th n8 column group, softcap (d <= 128) every 2nd; polyB:
# plain d64 every 2nd, softcap every 4th. Kernel-only forward A/B in alternating processes: bf16 two
# rounds (d64 / d128, softcap 0 / 30 (bounded step) / 50 (running max)), fp16 one round (d64 / d96 /
# d128 at S4096, softcap 0 / 30).
set -u
export CARRY=.carry_s52 DC_DEADLINE=540
. tools/bench/device_call.sh
dc_unpack head polyA polyB
dc_ab 2 head polyA polyB -- --passes fwd --softcaps 0,30,50 --seqlens 1024,16384
dc_ab 1 head polyA polyB -- --passes fwd --softcaps 0,30 --seqlens 4096 --dims 64,96,128 --dtype fp16 --nofeatures
dc_table head polyA polyB
dc_finish
