# Session 40, device call 6 (H200, right after calls 4 and 5 on the same machine): FlashAttention-4
# beside flashcore (3bf442e's //tools/bench:attention_bundle), cuDNN and torch's FA2, every backend
# in one process on the same tensors, forward kernel-only: the paper grid (fp16 + bf16, d64 / d128,
# S 1024..16384, causal and full; issue 14) and head dims 96 / 192 / 256 (bf16, S 1024 / 4096 /
# 16384; issue 15). Carry .carry_fa4/attention_bundle.tar.xz.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p .carry_fa4/fa4 && ln -sfn /root/keep/b .carry_fa4/fa4/b
CARRY=.carry_fa4 PHASES="paper_fwd wide_fwd" T_END=260 OUT=$OUT bash tools/bench/fa4_grid_h100.sh
