# Session 22 call 5 (H100): the GPU suites that run the sm90a and sm80-PTX forward, on the
# working tree's build (the step order per head dim, tile_policy.h fwd_softmax_halves_together).
set -u
CARRY=.carry_s22e SUITES="gpu_h100:330 gpu_h100_features:330 gpu_h100_hf:250 gpu_h100_paged_forward:420 gpu_h100_edge:250" \
  bash tools/bench/gpu_suites.sh
