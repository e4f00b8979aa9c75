# Session 35, device call 5 (H200, right after call 4 on the same machine, FA4 still installed under
# /tmp/fa4): issue 13's feature rows (GQA, window, softcap, varlen equal / mixed lengths; d64 / d128,
# bf16) forward and backward, FA4 beside flashcore (HEAD), cuDNN and torch's FA2 in one process.
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p .carry_fa4/fa4 && ln -sfn /root/keep/b .carry_fa4/fa4/b
CARRY=.carry_fa4 PHASES="feat_fwd feat_bwd" T_END=330 OUT=$OUT bash tools/bench/fa4_grid_h100.sh
