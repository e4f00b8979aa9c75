# Session 25 call 3 (H100): the non-causal backward's rotated start block (rot) against HEAD's build,
# kernel-only A/B in alternating processes (bf16 two rounds, fp16 one; S 1024..16384, d64/d128,
# causal and full: causal is unchanged SASS-wise in the walk, a control), then the backward and
# features suites on the new build.
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:?}
A="--dims 64,128 --passes bwd --nofeatures --seqlens 1024,2048,4096,8192,16384"
CARRY=.carry VARIANTS="head rot" REPS=2 AB_ARGS="$A" OUT=$OUT/ab_bf16 bash tools/bench/ab_kernels.sh
CARRY=.carry VARIANTS="head rot" REPS=1 AB_ARGS="$A --dtype fp16" OUT=$OUT/ab_fp16 bash tools/bench/ab_kernels.sh
echo "ab done at $SECONDS s"
CARRY=.carry SUITES="gpu_h100_bwd:200 gpu_h100_features:200" OUT=/tmp/suites bash tools/bench/gpu_suites.sh 2>&1 | tail -8
grep -h -E "[0-9]+ (passed|failed)" /tmp/suites/*.log | tail -4
echo "done at $SECONDS s"
