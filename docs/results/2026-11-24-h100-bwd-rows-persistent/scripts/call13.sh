#!/bin/bash
# s13 call 13: Q / dO of step i + kStages prefetched into L2 by the backward producer. A/B final / pref
# kernel-only (bwd), 3 reps.
C=$PWD/.carry_s13
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
OUT=$OUT VARIANTS="final pref" REPS=3 AB_ARGS="--passes bwd --dims 64,96,128,256 --seqlens 1024,4096,16384 --nofeatures --rep 20" bash $C/ab.sh
