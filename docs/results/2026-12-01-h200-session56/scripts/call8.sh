# Session 56 call 8: the suites on the final build (`new`, 78c0f22: + the window keys' 64-bit sum and
# the deterministic backward's 32 MB chunk budget, host code since call 6).
set -u
export CARRY=.carry_s56 DC_DEADLINE=560
. tools/bench/device_call.sh
dc_suites "gpu_h200_bwd:400 gpu_h200_features:300 gpu_h200:300 gpu_h200_paged_forward:300 gpu_h200_api:240"
dc_finish
