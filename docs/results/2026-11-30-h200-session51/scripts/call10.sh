# Call 10 (session 51): the landed build (`bounded3`: the softcap bound at P <= 2^32, softcaps up
# to 52.7, Gemma 2's 50 included; a row that has seen no key keeps max -inf, decided from its key
# range) -- the suites its kernels touch (edge with the softcap-range test, features, main) with
# memcheck + racecheck over the forward meanwhile, then one A/B round against HEAD on the bf16 rows
# (softcap 0 / 30 / 50, and 60: beyond the bound, the running max) and issue 13's feature rows.
set -u
export CARRY=.carry_s51 DC_DEADLINE=400
. tools/bench/device_call.sh
S=docs/results/2026-11-30-h200-session51/scripts
dc_unpack head bounded3
DC_SAN_TIMEOUT=200 dc_sanitize bounded3 $S/san_softcap.py
dc_suites "gpu_h200_edge:200 gpu_h200_features:280 gpu_h200:200"
dc_ab 1 head bounded3 -- --passes fwd --softcaps 0,30,50,60 --seqlens 4096,16384
dc_table head bounded3
dc_finish
