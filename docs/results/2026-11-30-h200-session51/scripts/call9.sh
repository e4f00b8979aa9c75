# Call 9 (session 51): the bounded-softcap build after the review of call 8's failures (`bounded2`:
# a row that has seen no key keeps max -inf; the new test judges one_high's dv only): the suites
# its kernels touch, memcheck + racecheck over the forward meanwhile, then one more A/B round
# against HEAD on the bf16 rows (softcap 0 / 30 / 50) and issue 13's feature rows.
set -u
export CARRY=.carry_s51 DC_DEADLINE=440
. tools/bench/device_call.sh
S=docs/results/2026-11-30-h200-session51/scripts
dc_unpack head bounded2
DC_SAN_TIMEOUT=200 dc_sanitize bounded2 $S/san_softcap.py
dc_suites "gpu_h200_edge:200 gpu_h200_features:280 gpu_h200:200"
dc_ab 1 head bounded2 -- --passes fwd --softcaps 0,30,50 --seqlens 4096,16384
dc_table head bounded2
dc_finish
