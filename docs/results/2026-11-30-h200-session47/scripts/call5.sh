# Session 47, device call 5 (H200, right after calls 4a / 4b on the same machine): issue 13's
# feature rows (GQA, window, softcap, packed varlen equal / mixed; bf16, d64 / d128, causal and
# not) with FlashAttention-4, cuDNN and torch's FA2 beside HEAD's build (0b9912d,
# //tools/bench:attention_bundle), every backend in one process on the same tensors: forward
# kernel-only (CUDA-graph replay), backward eager autograd with each backend's kernels timed per
# call (PROFILE_KERNELS=1, torch.profiler).
# Carry .carry_fa4/fa4 (the wheel's last third, the small wheels) and .carry_fa4/attention_bundle.tar.xz.
set -u
CARRY=.carry_fa4 PHASES="feat_fwd feat_bwd" T_END=420 PROFILE_KERNELS=1 OUT=$OUT bash tools/bench/fa4_grid_h100.sh 2>&1 | tail -70
