#!/bin/bash
# s14 call 1: v1 (dQ stored under dK / dV) -- A/B against main (bwd, bf16, d64..256), then the bwd suite.
C=$PWD/.carry_s14
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
OUT=$OUT VARIANTS="main v1" REPS=2 AB_ARGS="--passes bwd --nofeatures --dims 64,96,128,192,256 --rep 40" bash $C/ab.sh
tail -40 $OUT/ab.log | head -0
OUT=$OUT SUITES="gpu_h100_bwd:250" bash $C/suites.sh
