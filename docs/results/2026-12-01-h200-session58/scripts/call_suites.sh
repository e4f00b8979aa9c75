# Session 58: the suites on the candidate build (`cand`: fwd_launch.cuh fwd_gqa_shift takes the
# window rule; tests/features_case.py's dsink check with its error floor; every kernel
# SASS-identical to session 57's): features, fuzz, main, edge, api.
set -u
export CARRY=.carry_s58 DC_DEADLINE=560
. tools/bench/device_call.sh
dc_suites "${SUITES:-gpu_h200_features:240 gpu_h200_fuzz:200 gpu_h200:120 gpu_h200_edge:100 gpu_h200_api:100}"
dc_finish
