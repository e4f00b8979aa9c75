#!/bin/bash
# s14 call 6: v4 (dS^T / P^T stored by stmatrix): A/B v3 / v4 (bwd, d64..256); suites on v4; racecheck of san_wide.py.
C=$PWD/.carry_s14
OUT=$OUT VARIANTS="v3 v4" REPS=2 AB_ARGS="--passes bwd --nofeatures --dims 64,96,128,192,256 --rep 25" bash $C/ab.sh
OUT=$OUT SUITES="gpu_h100_bwd:200 gpu_h100_features:200 gpu_h100_edge:200 gpu_h100_hf:200" bash $C/suites.sh
R=/tmp/v4/bundle/runfiles
PYTHONPATH=$R/_main:$R/_main/py:$R timeout 100 /usr/local/cuda/bin/compute-sanitizer --tool racecheck python3 $C/san_wide.py > $OUT/san_wide_racecheck.log 2>&1
echo "san_wide racecheck rc=$?: $(tail -1 $OUT/san_wide_racecheck.log)"
OUT=$OUT SUITES="gpu_h100:230 gpu_h100_kvcache:200 gpu_h100_fuzz:200" bash $C/suites.sh
