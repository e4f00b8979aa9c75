# Session 25 call 4 (H100): the forward softmax's row sums in 2 / 4 independent partial chains
# (sum2, sum4) against HEAD's build: kernel-only A/B in alternating processes, bf16 two rounds
# (d64/d128 paper rows + issue 13's feature rows), fp16 one round, d96/d192/d256 bf16 one round.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
CARRY=.carry VARIANTS="head sum2 sum4" REPS=2 AB_ARGS="--dims 64,128 --passes fwd" OUT=$OUT/ab_bf16 bash tools/bench/ab_kernels.sh
CARRY=.carry VARIANTS="head sum2 sum4" REPS=1 AB_ARGS="--dims 64,128 --passes fwd --nofeatures --dtype fp16" OUT=$OUT/ab_fp16 bash tools/bench/ab_kernels.sh
CARRY=.carry VARIANTS="head sum2 sum4" REPS=1 AB_ARGS="--dims 96,192,256 --passes fwd --nofeatures" OUT=$OUT/ab_hd bash tools/bench/ab_kernels.sh
echo "done at $SECONDS s"
