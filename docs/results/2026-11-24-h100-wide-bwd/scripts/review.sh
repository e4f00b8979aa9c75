#!/bin/bash
# s11 review: the shared score helper (bwd_scores.cuh) and the simplified epilogue / writer loop (w7)
# against w6: oracle subsets, gpu_h100_bwd, racecheck of the wide kernels, kernel-only A/B.
C=$PWD/.carry_ab
mkdir -p /tmp/g && tar xzf $C/g_gpu_h100_bundle.tar.gz -C /tmp/g
R=/tmp/g/bundle/runfiles
(cd $R/_main && PYTHONPATH=$R/_main/py:$R/_main/tests:$R timeout 100 python3 -m pytest -q -p no:cacheprovider \
  tests/gpu_features_test.py -k "192 or 256 or softcap or window" > $OUT/feat.log 2>&1)
echo "features subset rc=$? $(grep -E '[0-9]+ (passed|failed)' $OUT/feat.log | tail -1)"
PYTHONPATH=$R/_main:$R/_main/py:$R timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool racecheck python3 $C/san_wide.py > $OUT/san_racecheck.log 2>&1
echo "racecheck: $(tail -1 $OUT/san_racecheck.log)"
OUT=$OUT V=g SUITES="gpu_h100_bwd:200" bash $C/suites.sh | tail -3
OUT=$OUT CDIR=.carry_ab VARIANTS="w6 w7" REPS=2 AB_ARGS="--passes bwd --dims 64,128,192,256" bash $C/ab.sh | tail -30
