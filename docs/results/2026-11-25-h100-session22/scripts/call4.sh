# Session 22 call 4 (H100): kernel-only A/B of the two-phase softmax step (both row halves'
# extremes over four partial chains each, then both halves' exp2s) against HEAD's forward.
# base = 980270c's attention bundle, sm = the working tree's; bf16, alternating processes.
set -u
CARRY=.carry_s22d VARIANTS="base sm" REPS=3 \
  AB_ARGS="--dtype bf16 --dims 64,128,96,256 --passes fwd --seqlens 1024,4096,16384 --rep 25" \
  bash tools/bench/ab_kernels.sh
