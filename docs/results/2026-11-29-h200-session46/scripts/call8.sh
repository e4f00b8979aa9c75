# Session 46, device call 8 (H200, right after calls 3a-3c again on a fresh machine): FlashAttention-4,
# cuDNN and torch's FA2 beside the final build (//tools/bench:attention_bundle), every backend in
# one process on the same tensors: the paper grid's backward, fp16 (eager autograd
# backward, d64 / d128, S 1024..16384, causal and full; issue 14) with PROFILE_KERNELS=1 (each
# backend's kernels and their GPU time per call; session 44's breakdown.py).
# Carry .carry_fa4/attention_bundle.tar.xz; FA4's wheels are in /root/keep (calls 3a-3c).
set -u
rm -rf .carry_fa4/fa4 && mkdir -p .carry_fa4/fa4 && ln -s /root/keep/b .carry_fa4/fa4/b
CARRY=.carry_fa4 PHASES="paper_bwd" PAPER_DTYPES=fp16 T_END=300 PROFILE_KERNELS=1 OUT=$OUT bash tools/bench/fa4_grid_h100.sh 2>&1 | tail -45
