# Session 40, device call 7 (H200): the suites call 3 did not run, on the final build (3bf442e's
# kernels, cuobjdump-identical over all 564 functions): fuzz, paged_forward and kvcache, which reach
# head dim 192's short-rows tile by shape where their causal d192 cases have under 2048 keys.
# Carry .carry_s40: bundle/ (final).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s40 DC_DEADLINE=200
. tools/bench/device_call.sh
dc_suites "gpu_h200_fuzz:190 gpu_h200_paged_forward:190 gpu_h200_kvcache:200"
dc_finish
