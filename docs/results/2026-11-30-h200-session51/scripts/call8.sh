# Call 8 (session 51): the suites the bounded-softcap build's kernels touch: edge (with the new
# softcap-range test), features, the main forward suite.
set -u
export CARRY=.carry_s51 DC_DEADLINE=560
. tools/bench/device_call.sh
dc_suites "gpu_h200_edge:230 gpu_h200_features:300 gpu_h200:300"
dc_finish
