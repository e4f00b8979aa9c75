# Call 3 (session 52): the build to land (`final`: every 3rd n8 column group of the bf16 d64 bounded
# softcap step on the FMA pipe; SASS-identical to call 2's polyD) -- the suites its kernels touch
# (edge, with the NaN-key test's new keys 62 / 63 in an emulated column group; features; main)
# with memcheck + racecheck over the forward meanwhile, then one A/B round against HEAD on the bf16
# d64 rows and issue 13's feature rows.
set -u
export CARRY=.carry_s52 DC_DEADLINE=520
. tools/bench/device_call.sh
S=docs/results/2026-11-30-h200-session52/scripts
dc_unpack head final
DC_SAN_TIMEOUT=240 dc_sanitize final $S/san_poly.py
dc_suites "gpu_h200_edge:200 gpu_h200_features:280 gpu_h200:200"
dc_ab 1 head final -- --passes fwd --dims 64 --softcaps 0,30 --seqlens 4096,16384
dc_table head final
for t in memcheck racecheck; do echo "-- $t"; grep -E "SUMMARY|rror|san_poly done" $OUT/san_$t.log | head -5; done
dc_finish
