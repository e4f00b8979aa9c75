# Call 2 (session 52): the bounded softcap step's exp2s partly on the FMA pipe at head dim 64 only
# (the running-max steps and other head dims as HEAD: SASS-identical), unclamped on unmasked
# blocks: every 4th n8 column group (polyC), every 3rd (polyD), every 8th (polyE), against HEAD.
# Kernel-only forward A/B, alternating processes, bf16 d64 (the bound applies to softcap 30 and
# 50; softcap 0 a control), three rounds.
set -u
export CARRY=.carry_s52 DC_DEADLINE=520
. tools/bench/device_call.sh
dc_unpack head polyC polyD polyE
dc_ab 3 head polyC polyD polyE -- --passes fwd --dims 64 --softcaps 0,30,50 --seqlens 1024,4096,16384
dc_table head polyC polyD polyE
dc_finish
