# Call 7 (session 51): the bf16 softcap softmax step without a running max (`bounded`) against
# HEAD's kernels (`head`): kernel-only forward A/B in alternating processes, softcap 0 / 30 (the
# bound applies) / 50 (beyond it: the running max, a control), bf16 two rounds and fp16 one (fp16
# keeps the running max: a control); memcheck + racecheck over the forward kernels meanwhile.
set -u
export CARRY=.carry_s51 DC_DEADLINE=470
. tools/bench/device_call.sh
S=docs/results/2026-11-30-h200-session51/scripts
dc_unpack head bounded
DC_SAN_TIMEOUT=300 dc_sanitize bounded $S/san_softcap.py
dc_ab 2 head bounded -- --passes fwd --softcaps 0,30,50 --seqlens 1024,16384
dc_ab 1 head bounded -- --passes fwd --softcaps 0,30 --seqlens 4096 --dtype fp16 --nofeatures
dc_table head bounded
wait
for t in memcheck racecheck; do echo "-- $t"; grep -E "SUMMARY|rror|san_softcap done" $OUT/san_$t.log | head -5; done
dc_finish
