# Session 45, device calls 6-9 (H200, back to back on one machine): FlashAttention-4, cuDNN and
# torch's FA2 beside the landed backward (6ea5ee4, //tools/bench:attention_bundle), every backend in
# one process on the same tensors: the paper grid's backward, bf16 (eager autograd backward, d64 /
# d128, S 1024..16384, causal and full; issue 14) with PROFILE_KERNELS=1 (each backend's kernels
# and their GPU time per call; session 44's breakdown.py). Calls 6-8 copy FA4's wheels:
#   6: carry .carry_fa4/p1: mkdir -p /root/keep/b && cp .carry_fa4/p1/* /root/keep/
#   7: carry .carry_fa4/p2: cp .carry_fa4/p2/* /root/keep/b/
#   8: carry .carry_fa4/p3: cp .carry_fa4/p3/* /root/keep/b/
# call 9 (carry .carry_fa4/attention_bundle.tar.xz) runs the lines below.
set -u
mkdir -p .carry_fa4/fa4 && ln -sfn /root/keep/b .carry_fa4/fa4/b
CARRY=.carry_fa4 PHASES="paper_bwd" PAPER_DTYPES=bf16 T_END=330 PROFILE_KERNELS=1 OUT=$OUT bash tools/bench/fa4_grid_h100.sh 2>&1 | tail -30
