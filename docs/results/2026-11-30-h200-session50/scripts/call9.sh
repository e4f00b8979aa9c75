# Call 9 (session 50): after the review mend (the early exit as BwdCta::past_its_keys, every kernel
# function SASS-identical to ccd24b1's; the captured-tails test on the module's forced_arch
# fixture), the features and bwd suites once more.
set -u
export CARRY=.carry_s50
. tools/bench/device_call.sh
dc_suites "gpu_h200_features:240 gpu_h200_bwd:230"
dc_finish
