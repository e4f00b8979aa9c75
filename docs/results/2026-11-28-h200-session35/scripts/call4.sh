# Session 35, device call 4 (H200, right after calls 2 and 3 on the same machine, which copied
# FA4's wheels to /root/keep): FlashAttention-4 beside flashcore (HEAD e4c304a's
# //tools/bench:attention_bundle), cuDNN and torch's FA2, every backend in one process on the same
# tensors -- the first FA4 measurement on an H200. Phases: the paper grid backward and forward
# (fp16 + bf16, d64 / d128, S 1024..16384, causal and full; issue 14), then head dims 96 / 192 / 256
# forward and backward (bf16, S 1024 / 4096 / 16384; issue 15).
set -u
cd "$(dirname "$0")/../../../.."
# FA4's second half was copied by call 3 (this call could not carry it beside the tree and the
# bundle: 64 MiB), so the folder the grid script reads points there.
mkdir -p .carry_fa4/fa4 && ln -sfn /root/keep/b .carry_fa4/fa4/b
CARRY=.carry_fa4 PHASES="paper_bwd paper_fwd wide_fwd wide_bwd" T_END=570 OUT=$OUT bash tools/bench/fa4_grid_h100.sh
