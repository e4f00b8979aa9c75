#!/bin/bash
# s12 call 4: A/B of the d96 backward, kernel-only in alternating processes: old (6ba1c04, 72..96 on
# the 128 kernel), v0 (b5f3b64: the 96 kernel, dQ 64 + 32 alternating), v7 (the same, static split).
C=$PWD/.carry_s12
OUT=$OUT CDIR=.carry_s12 VARIANTS="old v0 v7" REPS=2 AB_ARGS="--passes bwd --dims 96,80,72 --seqlens 1024,4096,16384 --nofeatures --rep 40" bash $C/ab.sh
