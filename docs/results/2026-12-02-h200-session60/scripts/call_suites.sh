# Session 60: the suites not run on `bwd80` (670ccf1's kernels) in call_bwd80.sh: main, api, hf,
# kvcache, paged_forward and the sanitizer suite.
set -u
export CARRY=.carry_s60 DC_DEADLINE=500
. tools/bench/device_call.sh
dc_suites "${SUITES:-gpu_h200:120 gpu_h200_api:120 gpu_h200_hf:200 gpu_h200_kvcache:250 gpu_h200_paged_forward:200 gpu_h200_sanitizer:400}"
dc_finish
