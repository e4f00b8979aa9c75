# Session 62, calls 3 and 4 (run inline): the GPU suites on c's bundle (.carry_s62/bundle).
set -u
export CARRY=.carry_s62 DC_DEADLINE=500
. tools/bench/device_call.sh
dc_suites "gpu_h200_features:300 gpu_h200:200 gpu_h200_edge:120 gpu_h200_fuzz:200 gpu_h200_hf:200"  # call 3
dc_suites "gpu_h200_api:120 gpu_h200_kvcache:200 gpu_h200_paged_forward:200"                         # call 4
dc_finish
