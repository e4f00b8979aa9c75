# Session 44, device call 18 (H200): the review mend (the launcher builds its BwdBlockOrder once;
# every kernel SASS-identical to f3efec6's) under the backward and edge suites.
# Carry .carry_s44/bundle.
set -u
export CARRY=.carry_s44 DC_DEADLINE=200
. tools/bench/device_call.sh
dc_suites "gpu_h200_bwd:170 gpu_h200_edge:40"
dc_finish
