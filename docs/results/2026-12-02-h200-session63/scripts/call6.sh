# Session 63 call 6: memcheck + racecheck on the sorted tail through the 192-row long-rows tiles
# (64 and 96 forced, causal, 8 x 1100 rows: every tile of those walks is in the tail), and the
# suites whose forward calls call 5 did not run (kvcache's prefill, paged forward, api).
set -u
export CARRY=.carry_s63
. tools/bench/device_call.sh
dc_unpack tail2
DC_SAN_TIMEOUT=240 dc_sanitize tail2 tools/bench/san_case.py --dims 64,96 --tiles long_rows --causal causal \
  --features plain,gqa --shape 8,1100,1100 --dtypes bf16,fp16
dc_suites "gpu_h200_kvcache:300 gpu_h200_paged_forward:200 gpu_h200_api:120"
dc_finish
