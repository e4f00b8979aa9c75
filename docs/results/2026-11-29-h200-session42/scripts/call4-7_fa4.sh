# Session 42, device calls 4-7 (H200, back to back on one machine): FlashAttention-4 beside the
# final build's backward (//tools/bench:attention_bundle, the build call 3 checked;
# tile_policy.h bwd_dq_lagged), cuDNN and torch's FA2, every backend in one
# process on the same tensors: the paper grid's backward (eager autograd backward, fp16 + bf16,
# d64 / d128, S 1024..16384, causal and full; issue 14). FA4's wheels as session 40 carried them
# (its scripts/call4.sh: the big wheel re-split in three 31 MB parts):
#   call 4, carry .carry_fa4/p1:  mkdir -p /root/keep/b && cp .carry_fa4/p1/* /root/keep/
#   call 5, carry .carry_fa4/p2:  cp .carry_fa4/p2/* /root/keep/b/
#   call 6, carry .carry_fa4/p3:  cp .carry_fa4/p3/* /root/keep/b/
#   call 7, carry .carry_fa4/attention_bundle.tar.xz: the lines below.
set -u
mkdir -p .carry_fa4/fa4 && ln -sfn /root/keep/b .carry_fa4/fa4/b
CARRY=.carry_fa4 PHASES="paper_bwd" T_END=330 OUT=$OUT bash tools/bench/fa4_grid_h100.sh 2>&1 | tail -15
