# Session 48, call 6: the suites call 2 did not run, on 652a9bb's bundle (the final kernels and
# the window clamp): the main suite, the Hugging Face suite and the sanitizer sweep, in parallel.
set -u
export CARRY=.carry_s48c
. tools/bench/device_call.sh
dc_suites "gpu_h200:300 gpu_h200_hf:200 gpu_h200_sanitizer:300"
dc_finish
