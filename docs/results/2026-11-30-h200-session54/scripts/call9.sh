# Session 54 call 9: the bf16 bounded softcap step's P rounded to bf16 before its row sums (`fix`)
# against the landed build (`base`, 86e4887): the suites that judge it (fuzz, which found the
# defect in call 8; edge, with the new one-key-rows test; features; the main forward suite), then
# a kernel-only forward A/B of the bf16 d64 / d128 rows, softcap 0 and 30, two rounds.
set -u
export CARRY=.carry_s54 DC_DEADLINE=420
. tools/bench/device_call.sh
dc_unpack base fix
dc_suites "gpu_h200_fuzz:300 gpu_h200_edge:240 gpu_h200_features:280 gpu_h200:240"
dc_ab 2 base fix -- --passes fwd --dims 64,128 --softcaps 0,30 --seqlens 4096,16384 --nofeatures
dc_table base fix
dc_finish
