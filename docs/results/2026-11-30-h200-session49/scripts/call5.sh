# Call 5 (session 49): head dim 128's forward softmax step with both row halves' maxima first, over
# four partial chains each (`hv`: fwd_softmax_halves_together true at 128 too, as every other head
# dim since session 22), against HEAD. Why now: call 4's ncu of the d128 full S16384 forward put
# 19.1% of the stall samples on FMNMX, the serial max chains (math / wait / short_sb on the quad
# shuffles); session 22 had measured this order at 128 on an H100 at -3.5..+2.4% (noise). ptxas:
# d128 full kernels 0 spills both ways; causal default tile 20/48 -> 24/56 bytes, other tile
# 16/40 -> 12/20. Exactly the 8 sm90a d128 forward kernels change SASS.
# Predicted: +1..+3% on the d128 forward rows (the chain's exposed latency), softcap rows alike.
set -u
export CARRY=.carry_s49 DC_DEADLINE=230
. tools/bench/device_call.sh
dc_unpack head hv
dc_ab 2 head hv -- --dtype bf16 --passes fwd --dims 128 --seqlens 1024,4096,16384 --rep 30
dc_ab 1 head hv -- --dtype fp16 --passes fwd --dims 128 --seqlens 1024,4096,16384 --rep 30
dc_table head hv
DC_SAN_TIMEOUT=200 dc_sanitize hv docs/results/2026-11-29-h200-session38/scripts/san_partial_tiles.py
dc_suites "gpu_h200:200 gpu_h200_features:200"
dc_finish
