# Session 55 call 1: the bf16 bounded softcap step in a mainloop copy of its own on the 192-row
# tiles (`new`) against HEAD (`head`, 453f8a6): the suites on `new` (fuzz, edge, features, main --
# the last two had not run on session 54's final softcap kernels), the one_high gradient probe, and
# a kernel-only forward A/B of the bf16 d64 / d96 rows, softcap 0 and 30, two rounds.
set -u
export CARRY=.carry_s55 DC_DEADLINE=500
. tools/bench/device_call.sh
dc_unpack head new
dc_suites "gpu_h200_fuzz:300 gpu_h200_edge:240 gpu_h200_features:280 gpu_h200:240"
PYTHONPATH=$DC_AB/new/py timeout 120 python3 docs/results/2026-11-30-h200-session55/scripts/one_high_probe.py > $OUT/one_high.txt 2>&1
tail -40 $OUT/one_high.txt
dc_ab 2 head new -- --passes fwd --dims 64,96 --softcaps 0,30 --seqlens 4096,16384 --nofeatures
dc_table head new
dc_finish
