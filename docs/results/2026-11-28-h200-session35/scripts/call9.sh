# Session 35, device call 9 (H200, right after calls 7 and 8, which copied FA4's wheels to /root/keep as
# calls 2 and 3 did): head dims 96 / 192 / 256 in fp16 (call 4 measured bf16), forward and backward,
# FA4 beside flashcore (HEAD), cuDNN and torch's FA2 in one process (issue 15's rows).
set -u
cd "$(dirname "$0")/../../../.."
mkdir -p .carry_fa4/fa4 && ln -sfn /root/keep/b .carry_fa4/fa4/b
CARRY=.carry_fa4 WIDE_DTYPES=fp16 PHASES="wide_fwd wide_bwd" T_END=330 OUT=$OUT bash tools/bench/fa4_grid_h100.sh
