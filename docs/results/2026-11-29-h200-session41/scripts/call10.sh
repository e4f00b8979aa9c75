# Session 41, device call 10 (H200): the final build (`618640e`; its _C.so byte-identical to the one
# calls 6-9 timed beside FA4, SASS-identical to call 4's `dkfirst`): the suites whose backward cases
# had not yet run on head dim 128's new kernels (hf, fuzz, edge; bwd and features ran on them in
# calls 4 and 5).
# Carry .carry_s41/bundle (final).
set -u
cd "$(dirname "$0")/../../../.."
export CARRY=.carry_s41 DC_DEADLINE=200
. tools/bench/device_call.sh
dc_suites "gpu_h200_hf:100 gpu_h200_fuzz:150 gpu_h200_edge:60"
dc_finish
