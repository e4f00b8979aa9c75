# Session 36, device call 4 (H200, right after calls 2 + 3 copied FA4's wheels to /root/keep as
# session 35's scripts/copy_fa4_wheels.sh): issue 13's feature rows forward, FA4 beside this
# build (pack-GQA d64 kernels), cuDNN and torch's FA2 in one process. Carry .carry_s36fa (this
# build's //tools/bench:attention_bundle, xz).
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p .carry_s36fa/fa4 && ln -sfn /root/keep/b .carry_s36fa/fa4/b
CARRY=.carry_s36fa PHASES="feat_fwd" T_END=300 OUT=$OUT bash tools/bench/fa4_grid_h100.sh
