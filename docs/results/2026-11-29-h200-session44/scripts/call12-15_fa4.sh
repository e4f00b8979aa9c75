# Session 44, device calls 12-15 (H200, back to back on one machine): FlashAttention-4, cuDNN and
# torch's FA2 beside the landed backward (f3efec6, //tools/bench:attention_bundle), every backend in
# one process on the same tensors: the paper grid's backward (eager autograd backward, fp16 + bf16,
# d64 / d128, S 1024..16384, causal and full; issue 14) with PROFILE_KERNELS=1, so that each row
# also has each backend's kernels and their GPU time per call (breakdown.py: main kernel and side
# passes). Calls 12-14 copy FA4's wheels as call 1-3 did; call 15 runs the lines below.
set -u
mkdir -p .carry_fa4/fa4 && ln -sfn /root/keep/b .carry_fa4/fa4/b
CARRY=.carry_fa4 PHASES="paper_bwd" T_END=400 PROFILE_KERNELS=1 OUT=$OUT bash tools/bench/fa4_grid_h100.sh 2>&1 | tail -46
