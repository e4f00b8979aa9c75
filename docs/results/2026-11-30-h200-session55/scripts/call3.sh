# Session 55, device calls 3a / 3b / 3c (H200, back to back on one warm machine), as session 47's
# calls 4-5: 3a and 3b copy two thirds of FlashAttention-4's CUTLASS DSL wheel to /root/keep
#   3a: carry .carry_fa4/p1: bash call3.sh p1      3b: carry .carry_fa4/p2: bash call3.sh p2
# 3c (carry .carry_fa4/fa4 and .carry_fa4/attention_bundle.tar.xz: bash call3.sh bench): the paper
# grid (d64 / d128, fp16 / bf16, S 1024-16384, causal and not) and issue 13's feature rows with
# FlashAttention-4, cuDNN and torch's FA2 beside this session's build (fb1b828,
# //tools/bench:attention_bundle), every backend in one process on the same tensors: forward
# kernel-only (CUDA-graph replay), backward eager autograd with each backend's kernels timed per
# call (PROFILE_KERNELS=1, torch.profiler).
set -u
if [ "$1" = bench ]; then
  CARRY=.carry_fa4 T_END=480 PROFILE_KERNELS=1 OUT=$OUT bash tools/bench/fa4_grid_h100.sh 2>&1 | tail -150
else
  mkdir -p /root/keep && cp .carry_fa4/$1/* /root/keep/ && ls -la /root/keep
fi
