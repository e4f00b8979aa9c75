#!/bin/bash
# s14 call 3: main / v1 (dQ under dK) / v2 (v1 + per-consumer dQ barriers, 256 back to the old order): bwd A/B; then suites on v2.
C=$PWD/.carry_s14
nvidia-smi -q -d PERFORMANCE | grep -A3 'Reasons Counters'
OUT=$OUT VARIANTS="main v1 v2" REPS=2 AB_ARGS="--passes bwd --nofeatures --dims 64,128,192,256 --rep 30" bash $C/ab.sh
nvidia-smi -q -d PERFORMANCE | grep -A3 'Reasons Counters'
OUT=$OUT SUITES="gpu_h100_bwd:250 gpu_h100_features:250" bash $C/suites.sh
