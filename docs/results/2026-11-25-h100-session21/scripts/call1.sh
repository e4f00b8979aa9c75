#!/usr/bin/env bash
# Session 21, call 1 (H100): the narrow mainloop (narrow = ffdd09b's kernels) against main (65f3819),
# bf16, one round of two. Carry .carry_s21 (main_ and narrow_attention_bundle).
CARRY=.carry_s21 VARIANTS="main narrow" REPS=2 \
  AB_ARGS="--dims 80,96,200,256,192:128,192,128 --passes fwd --nofeatures --seqlens 1024,4096,16384 --rep 25" \
  bash tools/bench/ab_kernels.sh
