#!/bin/bash
# s14 call 10 (review): one lse-row helper for every kernel, the wide kernel's dQ split from
# dq_tile_slice -- every H100 suite on it, then a short kernel-only A/B of v4 / v5 (d192, d256, where the SASS changed).
C=$PWD/.carry_s14c
nvidia-smi -q -d PERFORMANCE | grep -A3 'Reasons Counters'
OUT=$OUT SUITES="gpu_h100:230 gpu_h100_bwd:230 gpu_h100_features:230 gpu_h100_kvcache:230 gpu_h100_edge:230 gpu_h100_fuzz:230" bash $C/suites.sh
CDIR=.carry_s14c OUT=$OUT VARIANTS="v4 v5" REPS=2 AB_ARGS="--passes bwd --nofeatures --dims 192,256 --seqlens 1024,16384 --rep 25" bash $C/ab.sh
